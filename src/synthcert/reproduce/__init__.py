"""Reproductions of the papers synthcert implements, each printed value beside the computed one.

``rdp`` (Miura et al., seed 000 and thesis chapter 5), ``neunhoeffler`` (seed 004),
``setsubun`` (the thesis's audit grid) and ``utility`` (the utility study).
"""
