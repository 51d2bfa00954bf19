"""Prefect flows over the pipeline's stages (see mcpdelta/flows/survey.py)."""
