"""The visual test set: documents whose answers are in pixels, and what reading them adds to search.

- :mod:`.make_set` writes ``sample_docs/visual/`` (``python -m eval.visual.make_set``), drawing
  the scans with :mod:`.scan` and the figures with :mod:`.figures`; :mod:`.expected` says where
  the figures and scanned pages are.
- ``eval/docs_questions/visual.jsonl`` holds the questions (:mod:`.questions`), written from the
  files before any search ran over them.
- ``python -m eval.visual`` (:mod:`.measure`, :mod:`.ocr_accuracy`, :mod:`.robustness`) indexes the
  set with OCR and figures off and on, and reports recall, OCR word accuracy, figures and
  decorations, speed and hostile files; ``--quick`` is the slice ``tests/eval/test_visual_eval.py`` gates on.
"""
