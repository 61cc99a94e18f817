"""The reader: models the project trains that decide which sentence states the answer, and whether any does.

`model` holds the shipped weights' loader and scorers (ranker and answerability), `reading` re-ranks a search's
candidate sentences with them and `stage` is the pipeline's reading stage; `ai_llm/evals/reader` collects the
development data and trains them (`hub train reader`); `docs/models/reader.md` is the model card.
"""
