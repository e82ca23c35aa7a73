"""Thin slash-command adapters: parse the interaction, call a service, send the reply."""
