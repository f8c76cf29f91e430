"""Calling models: the embedded ``local/`` provider for litellm, and tool calls for models without them."""
