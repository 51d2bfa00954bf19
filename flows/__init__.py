"""Prefect flows over the pipeline's stages (see flows/survey.py)."""
