"""The reader: a model the project trains that decides which sentence states the answer, and whether any does.

`model` holds the shipped weights' loader and scorer, `read` re-ranks a search's candidate sentences with it,
and `training` collects development data and trains it (`hub train reader`); `docs/models/reader.md` is its
model card.
"""
