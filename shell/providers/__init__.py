"""Chat model implementations: real providers over httpx, and the scripted and demo models."""
