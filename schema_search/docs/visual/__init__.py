"""PDF and DOCX read beyond their text layer: scanned pages by OCR, figures read or described.

A reader given a :class:`~.options.Visual` asks :mod:`.pdf` or :mod:`.docx` here for what
the file shows but does not hold as text. Whatever parses a PDF with PDFium, inflates or
decodes an image, renders a page or runs Tesseract does so in the sandbox's child process
(:mod:`.worker`, through :mod:`.session`), capped in memory and stopped at the document's
deadline; this process only reads what the plain readers read (a DOCX's XML, a PDF's text
layer by pypdf where PDFium gave none), plans, places and, when a vision model is set,
asks it (:mod:`.vision`).

- :mod:`.options`: the switches and limits, from the settings.
- :mod:`.figures`: which page objects are figures and which the template's decoration (pure).
- :mod:`.scans`: which pages are scans (pure).
- :mod:`.languages`: the Tesseract language of a page or a figure (pure but for py3langid).
- :mod:`.pages`: PDFium's view of a page (text, objects, pixels); :mod:`.ocr`: Tesseract.
- :mod:`.figure_text`: a read figure as section text; :mod:`.place`: that section among
  the text sections around it (pure).
- :mod:`.report`: the account a parsed document carries (``ParsedDocument.visual``).
- :mod:`.docx_parts`: a DOCX's zip members, inflated within a limit (the reader's too).
- :mod:`.secrets`: the environment's secrets, kept from the child and redacted from errors.

Importing this package imports none of PDFium, Pillow, Tesseract or litellm.
"""
