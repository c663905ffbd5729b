"""Turns result files into tables and reports."""
