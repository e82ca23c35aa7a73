"""Persistence: ORM rows, the engine and sessions, repositories."""
