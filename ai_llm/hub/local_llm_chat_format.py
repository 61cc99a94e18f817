"""`hub-chatml-tools`: an OpenAI-style tool-calling chat format for llama-cpp-python's server (ChatML models).

llama-cpp-python 0.3.36's `chatml-function-calling` format, the one stock format for ChatML models with
tools, breaks a ReAct loop in three ways:

1. its template renders no `tool` messages, so the model never sees a tool's result;
2. when the model answers in text while tools are offered, the answer is decoded under the grammar that
   picks the *next function*, so the text is always empty;
3. after a call it keeps generating further calls for as long as the model picks one (unbounded).

This format keeps everything that works (ChatML, the tool list in the system turn, grammar-chosen
`functions.<name>:` or `message:`, JSON-schema-constrained arguments) and fixes those: tool results are
shown as user turns naming the function, a text answer is decoded freely, and one turn makes at most one
call. Requests without tools go to the stock handler unchanged (plain chat, streaming, `json_object` with a
`schema`). `tool_choice` absent with tools means `"auto"`, as in the OpenAI API.

Only the server process runs it (`python -m ai_llm.hub.local_llm run-server`); llama_cpp is
imported lazily so the prompt rendering can be checked without it.
"""

from __future__ import annotations

import json
from typing import Any

NAME = "hub-chatml-tools"
#: Token cap for one call's JSON arguments (the grammar closes the object; a tiny model may ramble inside).
MAX_ARGUMENT_TOKENS = 256

_TOOL_INSTRUCTIONS = (
    "\n\nYou have access to the following functions:\n{functions}\n\n"
    "You can respond to users messages with either a single message or a function call."
    "\n\nTo respond with a message begin the message with 'message:', use the following format:"
    "\n\nmessage:\n<message>"
    "\n\nTo respond with a function call begin the message with 'functions.<function_name>:', "
    "use the following format:\n\nfunctions.<function_name>:\n{{ \"arg1\": \"value1\", \"arg2\": \"value2\" }}"
)


def _text(content: Any) -> str:
    """Message content as text (OpenAI content may be a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """ChatML prompt with the tool list in the system turn and tool results as user turns."""
    system = "\n\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
    if tools:
        listing = "\n".join(f"\nfunctions.{t['function']['name']}:\n"
                            + json.dumps(t["function"].get("parameters") or {}) for t in tools)
        system += _TOOL_INSTRUCTIONS.format(functions=listing)
    parts = [f"<|im_start|>system\n{system.strip()}<|im_end|>\n"] if system.strip() else []
    call_names: dict[str, str] = {}
    for message in messages:
        role = message.get("role")
        text = _text(message.get("content"))
        if role == "user":
            parts.append(f"<|im_start|>user\n{text}<|im_end|>\n")
        elif role == "assistant":
            body = []
            if text:
                body.append(("message:\n" if tools else "") + text)
            for call in message.get("tool_calls") or []:
                name = call["function"]["name"]
                call_names[call.get("id", "")] = name
                body.append(f"functions.{name}:\n{call['function'].get('arguments', '')}")
            parts.append("<|im_start|>assistant\n" + "\n".join(body) + "<|im_end|>\n")
        elif role in ("tool", "function"):
            name = call_names.get(message.get("tool_call_id", "")) or message.get("name") or "tool"
            parts.append(f"<|im_start|>user\nResult of functions.{name}:\n{text}<|im_end|>\n")
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def _choice_grammar(names: list[str], allow_message: bool) -> Any:
    from llama_cpp import llama_grammar

    alternatives = " | ".join(f'"functions.{name}:"' for name in names)
    root = "root ::= functions" + (' | "message:"' if allow_message else "")
    return llama_grammar.LlamaGrammar.from_string(f"{root}\nfunctions ::= {alternatives}\n", verbose=False)


def _arguments_grammar(parameters: dict[str, Any]) -> Any:
    from llama_cpp import llama_grammar

    try:
        return llama_grammar.LlamaGrammar.from_json_schema(json.dumps(parameters), verbose=False)
    except Exception:  # a schema the converter cannot express: any JSON object
        return llama_grammar.LlamaGrammar.from_string(llama_grammar.JSON_GBNF, verbose=False)


def hub_chatml_tools(llama: Any, messages: list[dict[str, Any]], functions: Any = None, function_call: Any = None,
                     tools: list[dict[str, Any]] | None = None, tool_choice: Any = None, **kwargs: Any) -> Any:
    """The chat-completion handler (same signature as llama-cpp-python's handlers)."""
    from llama_cpp import llama_chat_format as formats

    if functions and not tools:
        tools = [{"type": "function", "function": f} for f in functions]
        tool_choice = tool_choice or function_call
    if not tools or tool_choice == "none":
        # No tools: the stock handler (ChatML, streaming, json_object + schema grammar). Tool results of
        # earlier turns still become visible user turns.
        shown = [{"role": "user", "content": f"Result of the tool:\n{_text(m.get('content'))}"}
                 if m.get("role") in ("tool", "function") else m for m in messages]
        return formats.chatml_function_calling(llama=llama, messages=shown, **kwargs)

    stream = bool(kwargs.get("stream"))
    sampling = {key: kwargs[key] for key in (
        "temperature", "top_p", "top_k", "min_p", "typical_p", "presence_penalty", "frequency_penalty",
        "repeat_penalty", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta", "model", "seed",
        "logits_processor") if kwargs.get(key) is not None}
    by_name = {t["function"]["name"]: t for t in tools}
    prompt = render(messages, tools)

    if isinstance(tool_choice, dict):  # a named function is forced
        name = tool_choice.get("function", {}).get("name", "")
        if name not in by_name:
            raise ValueError(f"tool_choice names an unknown function {name!r}")
    else:
        choice = llama.create_completion(prompt=prompt, max_tokens=32, stream=False,
                                         grammar=_choice_grammar(list(by_name), tool_choice != "required"),
                                         **{**sampling, "temperature": 0.0})
        picked = choice["choices"][0]["text"].strip()
        if not picked.startswith("functions."):
            # A text answer, decoded freely (the stock format decodes it under the function-name grammar).
            completion = llama.create_completion(
                prompt=prompt + "message:\n", stop=["<|im_end|>"], stream=stream,
                max_tokens=kwargs.get("max_tokens"), **sampling)
            return formats._convert_completion_to_chat(completion, stream=stream)
        name = picked[len("functions."):].rstrip(":")
    parameters = by_name[name]["function"].get("parameters") or {"type": "object", "properties": {}}
    limit = kwargs.get("max_tokens") or MAX_ARGUMENT_TOKENS
    arguments = llama.create_completion(
        prompt=prompt + f"functions.{name}:\n", stop=["<|im_end|>"], stream=stream,
        max_tokens=min(limit, MAX_ARGUMENT_TOKENS), grammar=_arguments_grammar(parameters), **sampling)
    return formats._convert_completion_to_chat_function(name, arguments, stream)


def register() -> None:
    """Make `--chat_format hub-chatml-tools` known to llama-cpp-python in this process."""
    from llama_cpp import llama_chat_format as formats

    handler: Any = hub_chatml_tools  # same call signature as llama-cpp-python's handlers, loosely typed
    formats.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(NAME, handler, overwrite=True)
