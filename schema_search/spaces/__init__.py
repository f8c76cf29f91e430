"""Spaces (one data directory each) and the API keys that act within one."""
