"""Diagnostics that explain a verdict, computed from stored traces only (README.md)."""
