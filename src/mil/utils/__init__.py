"""Utilities shared by every part of mil."""
