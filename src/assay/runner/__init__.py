"""Executing evaluations."""
