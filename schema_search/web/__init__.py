"""The web page for people: plain HTML, CSS and ES modules in ``static/``, no build step.

It reads only the HTTP API (``/v1/...``), so it can do nothing the API would not let
any other client do; :mod:`schema_search.http.web` serves it at ``/``.
"""
