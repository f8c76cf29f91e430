"""The reference agents: text-to-SQL over a catalog (``ask``) and answers from documents (``answer``), on one tool loop."""
