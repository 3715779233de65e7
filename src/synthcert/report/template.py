"""The Jinja set-up of the report: one HTML template, escaping on, undefined names an error."""

from __future__ import annotations

from typing import Any

import jinja2

from synthcert.report.figures import fmt


def environment() -> jinja2.Environment:
    """The Jinja environment of the report's templates.

    Returns
    -------
    jinja2.Environment
        Templates from ``synthcert/report/templates``, HTML autoescaped, undefined variables an
        error, and the ``fmt`` filter (:func:`synthcert.report.figures.fmt`).
    """
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("synthcert.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    return env


def render_page(context: dict[str, Any]) -> str:
    """The page from the context :func:`synthcert.report.build.build_context` returns.

    Parameters
    ----------
    context : dict
        Every value the template reads.

    Returns
    -------
    str
        The HTML page.
    """
    return environment().get_template("report.html").render(**context)


__all__ = ["environment", "render_page"]
