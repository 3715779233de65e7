"""The release path imports neither scipy.stats nor the other synthesizers (start-up)."""

from __future__ import annotations

import subprocess
import sys


def test_release_workflow_does_not_import_scipy_stats_or_other_models():
    code = (
        "import sys, synthcert.workflows.release, synthcert.engine; "
        "heavy = [m for m in ('scipy.stats', 'synthcert.synthesizers.copula', "
        "'synthcert.synthesizers.privbayes', 'matplotlib') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_lazy_synthesizers_still_import_by_name():
    from synthcert.synthesizers import GaussianCopulaSynthesizer, PrivBayesSynthesizer

    assert GaussianCopulaSynthesizer.__module__ == "synthcert.synthesizers.copula"
    assert PrivBayesSynthesizer.__module__ == "synthcert.synthesizers.privbayes"
