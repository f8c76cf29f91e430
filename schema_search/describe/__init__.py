"""Generated table descriptions: the Describer protocol, prompt, cache, litellm and the embedded model."""
