"""The report's sections, one module each: every section takes typed results and returns the
plain values and figures its part of the template shows.

A new section goes into a module here with a ``<name>_section(...) -> dict`` function, an entry
in :data:`synthcert.report.wording.SECTIONS`, a block in ``templates/report.html`` and one line
in :func:`synthcert.report.build.build_context`.
"""
