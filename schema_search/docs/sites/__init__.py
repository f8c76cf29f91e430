"""Documentation sites read as their generators build them: MkDocs, VitePress, Docusaurus.

A folder of Markdown that a generator builds into a site is not a plain folder: the
generator decides which files are pages, what their URLs and titles are, what ids
their headings get, and what its own syntax (admonitions, macros, snippets, MDX)
turns into. :func:`~.detect.detect` finds the generator from its config file and
returns a :class:`~.site.Site` that the corpus reader asks those questions.
"""
