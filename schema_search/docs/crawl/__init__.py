"""A documentation site -> a local mirror folder that the folder indexing reads.

The only network code of ``docs/``. Pages are found by, in order, the site's
``llms.txt``, its sitemaps, or links followed from the start page
(:mod:`.discover`); fetched politely, conditionally and within the site
(:mod:`.fetch`); and saved with a ``manifest.jsonl`` that gives each file its URL,
title and fetch time (:mod:`.mirror`). :func:`.site.crawl_site` runs the whole.
"""
