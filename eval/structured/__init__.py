"""Structured-index evals: field extraction vs email.parser, count/filter/group accuracy, placeholders."""
