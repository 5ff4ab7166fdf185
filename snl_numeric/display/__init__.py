"""Text and HTML renderers for results (the ``_repr_html_`` hooks call down into here).

Renderers take the result objects duck-typed and import only :mod:`snl_numeric._core`.
"""
