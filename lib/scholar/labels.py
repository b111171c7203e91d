"""Response labels: the collection-time validator, the reference's labels and the paper's seven.

Three layers, all pure functions of one stored attempt record (see :mod:`lib.llm.store`):

1. :func:`llmcaller_validate` — the binary check made while collecting (reference §1.7): the
   greedy ``[...]``/``{...}`` substring, ``json.loads``, then the family's JSON schema. It decides
   whether the collector re-asks (up to three attempts, keeping the first valid one; paper §3.2).
2. :func:`reference_label` — faithful mode: the Auditor's labelling (reference §2.1) with its
   repair step and per-element checks, then the per-name extraction of §2.2 (a valid/verbose
   response that yields no name rows becomes ``invalid``). Labels (:data:`REFERENCE_LABELS`):
   valid, verbose, empty, invalid, provider_error, rate_limit, server_error, skipped-item,
   truncated-dict. Only valid and verbose count; provider_error, rate_limit and server_error are
   the failed-request labels (:data:`API_ERROR_LABELS`).
3. :func:`paper_label` — the paper's seven labels (§3.2 "Pre-processing"): valid, verbose,
   fixed, skipped, refused, API error, invalid, with each flag kept (the reference overwrites
   fixed/truncated flags with verbose [!]). Every failed request is ``API error``, whichever
   reference label it got (a Gemini final failure the reference calls ``invalid`` included [!]).

:func:`label_attempts` applies both to a table of attempt records (one chunk of rows in, a
table out) and marks the chosen attempt per request (:func:`set_attempt_validity`).
"""
from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any

from lib.llm.kernel import register_validator
from lib.scholar import prompts
from lib.scholar.refusals import detect_refusal

# ---- 1. collection-time validation (reference §1.7) -----------------------------------------
NO_JSON = "No JSON-like structure found in the response"
_JSON_LIKE = re.compile(r"\[.*\]|\{.*\}", re.DOTALL)


def schema_error(data: Any, family: str) -> str | None:
    """First violation of the family's JSON schema (reference ``config/schemas/<family>.json``):
    an array of objects with the required string keys (Career Age: string or number).

    Messages follow jsonschema's wording ("'Name' is a required property", "... is not of type
    'array'"); jsonschema itself is not imported (its import takes seconds on these machines).
    """
    if not isinstance(data, list):
        return f"{data!r} is not of type 'array'"
    required = prompts.FAMILIES[family].required_keys
    for item in data:
        if not isinstance(item, dict):
            return f"{item!r} is not of type 'object'"
        for k in required:
            if k not in item:
                return f"{k!r} is a required property"
            v = item[k]
            if k == "Career Age":
                if not (isinstance(v, str) or (isinstance(v, (int, float)) and not isinstance(v, bool))):
                    return f"{v!r} is not of type 'string', 'number'"
            elif not isinstance(v, str):
                return f"{v!r} is not of type 'string'"
    return None


@register_validator         # offline batch imports label by the plan's validator name
def llmcaller_validate(text: str | None, family: str) -> dict:
    """``{is_valid, message, extracted_data}`` for one answer, as the reference's LLMCaller does.

    Messages are the reference's: "No JSON-like structure found in the response", "Invalid JSON
    format: <json error>", "Schema validation failed: <error>", "No schema found for category
    '<c>'", "Validation successful". An empty array passes (it becomes ``empty`` later).
    """
    if family not in prompts.FAMILIES:
        return {"is_valid": False, "message": f"No schema found for category '{family}'", "extracted_data": None}
    m = _JSON_LIKE.search(text or "")
    if m is None:
        return {"is_valid": False, "message": NO_JSON, "extracted_data": None}
    try:
        data = json.loads(m.group(0))
    except json.JSONDecodeError as e:
        return {"is_valid": False, "message": f"Invalid JSON format: {e}", "extracted_data": None}
    except (RecursionError, ValueError) as e:
        return {"is_valid": False, "message": f"Validation error: {type(e).__name__}", "extracted_data": None}
    try:
        error = schema_error(data, family)
    except RecursionError as e:             # repr of a deeply nested value
        return {"is_valid": False, "message": f"Validation error: {type(e).__name__}", "extracted_data": None}
    if error is not None:
        return {"is_valid": False, "message": f"Schema validation failed: {error}", "extracted_data": None}
    return {"is_valid": True, "message": "Validation successful", "extracted_data": data}


def _literal(s: str) -> Any:
    """ast.literal_eval without the Syntax/DeprecationWarnings that odd model text triggers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(s)


# ---- helpers on the stored record -----------------------------------------------------------
def _release_record(rec: dict) -> dict | None:
    """The verbatim release attempt file of an imported record (:mod:`lib.scholar.release`), else None."""
    rr = rec.get("release_record")
    return rr if isinstance(rr, dict) else None


def _api_response(rec: dict) -> Any:
    """What the reference calls ``full_api_response``: the release file's key for imported
    records (None for a Gemini final failure), else the stored response body."""
    rr = _release_record(rec)
    return rr.get("full_api_response") if rr is not None else rec.get("response")


def is_gemini_final_failure(rec: dict) -> bool:
    """A Gemini final failure (reference §1.6): a release attempt file without ``full_api_response``
    (the importer's ``release_shape`` "gemini_failure"). Records the live client writes never are."""
    rr = _release_record(rec)
    return rec.get("release_shape") == "gemini_failure" or (rr is not None and "full_api_response" not in rr)


def _api_error_message(rec: dict, *, corrected: bool = False) -> str | None:
    """``error.message`` as the reference reads it, from ``full_api_response`` (faithful): only an
    error *response* carries one (OpenRouter's dump with ``error: {code, message, ...}``; for live
    records the client's ``body_error``, an HTTP-200 body with an error). An infrastructure
    failure (exception: timeout, connection, HTTP 4xx/5xx) saved ``{error_from_exception, ...}``
    with no ``error`` key, and a Gemini final failure has no ``full_api_response``: None.
    Corrected: the stored failure message of any failed request (the exception text)."""
    err = rec.get("error")
    if corrected:
        return err.get("message") if isinstance(err, dict) else None
    if _release_record(rec) is not None:
        api = _api_response(rec)
        api_err = api.get("error") if isinstance(api, dict) else None
        return api_err.get("message") if isinstance(api_err, dict) else None
    if isinstance(err, dict) and err.get("kind") == "body_error":
        return err.get("message")
    return None


def original_output(rec: dict, *, corrected: bool = False) -> str | None:
    """The reference's ``result_original_output`` (reference §2.1): the first non-empty string of
    Gemini ``full_api_response.response``, ``choices[0].message.reasoning`` (the reasoning trace,
    not the answer [!]), ``error.message`` of ``full_api_response``, ``choices[0].message.content``.

    Faithful [!]: an infrastructure failure (timeout, connection error, HTTP error) and a Gemini
    final failure have no raw text (None), because neither ``full_api_response`` carries an
    ``error.message``; only an error response (HTTP 200 with an error body) gives its message.
    Refusal detection then falls back to ``result_original_message`` (§2.4; :func:`label_record`).
    ``corrected=True``: the stored failure message of any failed request (e.g. "Request timed out.").
    """
    api = _api_response(rec)
    gemini = api.get("response") if isinstance(api, dict) and api.get("provider") == "gemini" else None
    for v in (gemini, rec.get("reasoning"), _api_error_message(rec, corrected=corrected), rec.get("content")):
        if isinstance(v, str) and v != "":
            return v
    return None


def _validation(rec: dict) -> dict:
    v = rec.get("validation")
    if isinstance(v, dict) and "message" in v:
        return v
    if rec.get("status", "ok") != "ok":
        return {"is_valid": False, "message": "Infrastructure failure - API call failed", "extracted_data": None}
    return llmcaller_validate(rec.get("content"), rec.get("task", ""))


# ---- 2. faithful: the Auditor's labels (reference §2.1-2.2) --------------------------------
VALID_FLAGS = ("valid", "verbose")
# The labels reference_label gives (the reference's constants minus fixed/illustrative, which its
# repair always overwrites with verbose [!]); the last three mark a failed request.
API_ERROR_LABELS = ("provider_error", "rate_limit", "server_error")
REFERENCE_LABELS = ("valid", "verbose", "empty", "invalid", "skipped-item", "truncated-dict", *API_ERROR_LABELS)
_ALLOWED_KEYS = {"date", "time", "model", "temperature", "llm_provider", "llm_model", "task_name", "task_param",
                 "task_attempt", "result_valid_flag", "Name", "Years", "DOI", "Ethnicity", "Career Age", "Reasoning"}
_TEXT_KEYS = ("Name", "Years", "DOI", "Ethnicity", "Career Age")
# The string fixes the spec lists (a subset of the ~40 the reference hard-codes for its own data).
_KEY_FIXES = (('"Namename"', '"Name"'), ('"Noame"', '"Name"'), ('"Nime"', '"Name"'), ("'Näme'", '"Name"'),
              ('"Näme"', '"Name"'))
_WRAPPERS = ('[{"Physicists": [', '{"physicists": [', '{"Physicists": [', '{"Scientists": [', '{"scientists": [')
_NESTED_NAME = re.compile(r'\{\s*"Name"\s*:\s*\{\s*"Name"\s*:\s*("(?:[^"\\]|\\.)*")\s*\}\s*\}')
_YEARS_UNQUOTED = re.compile(r'("Years"\s*:\s*)(\d{4}\s*-\s*\d{4}|\d{4})(?=\s*[,}])')
_TAIL_MARKERS = ("**Reasoning and Verification:**", "### Reasoning Explanation ###", "Given the critique")
_HEAD_MARKERS = ("### Updated Output ###", "### Output ###", "is as follows:", "While many distinguished individuals")
_TITLE = re.compile(r'(["\'])\s*(?:Dr|Mr|Mrs|Ms|PhD)\.\s*')
_PARENS = re.compile(r"\s*\([^)]*\)")


def _answer_parts(rec: dict) -> list | None:
    """Every part's text of a grounded Gemini answer (the importer's ``answer_parts``), else None."""
    parts = rec.get("answer_parts")
    if parts is None or isinstance(parts, (str, bytes, dict, float)):
        return None
    return list(parts)                      # a list, or an array after a parquet round trip


_TSUNAMI_FIX = ('"Tsunami":', '"Name":')


def repair_text(rec: dict) -> str | None:
    """The text the reference's repair reads (reference §2.1 rule 4, text selection).

    Grounded Gemini (REST answers with ``candidates[0].content.parts``, kept as ``answer_parts``):
    a single part's text with a stray ``"Tsunami":`` key rewritten to ``"Name":``; part 1 when
    there are 3 parts, part 2 when there are 4, otherwise part -2 (so part 0 of 2, part 3 of 5).
    Faithful [!]: the LLMCaller validated the saved text, yet the repair reads this part, so a
    repaired grounded answer can hold names the saved text does not. None when the answer has no
    parts or the chosen part has no text (the reference would fail there; labelled invalid).
    Everything else (OpenRouter, non-grounded Gemini's saved ``response``): the answer content.
    """
    parts = _answer_parts(rec)
    if parts is None:
        return rec.get("content")
    if not parts:
        return None
    if len(parts) == 1:
        text = parts[0]
        return text.replace(*_TSUNAMI_FIX) if isinstance(text, str) else None
    text = parts[1 if len(parts) == 3 else 2 if len(parts) == 4 else -2]
    return text if isinstance(text, str) else None


def _repair(content: str | None) -> tuple[Any, str]:
    """``extract_and_convert_to_dict``: (data or None, flag). Faithful [!]: a successful repair is
    always flagged ``verbose`` because the unconditional title/parenthesis strip sets it last."""
    if content is None:
        return None, "provider_error"
    s = content.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    s = s.replace("\\", "").replace("...", "").replace("```json", "").replace("```", "")
    for a, b in _KEY_FIXES:
        s = s.replace(a, b)
    s = _NESTED_NAME.sub(r'{"Name": \1}', s)
    s = _YEARS_UNQUOTED.sub(r'\1"\2"', s)
    for w in _WRAPPERS:
        s = s.replace(w, "[")
    for m in _TAIL_MARKERS:
        s = s.split(m)[0]
    for m in _HEAD_MARKERS:
        if m in s:
            s = s.split(m, 1)[1]
    start = s.find("[")
    if start == -1:
        if "{" not in s:
            return None, "invalid"
        s, start = "[" + s[s.find("{"):], 0     # the missing opening bracket fix
    end = s.find("]", start)
    if end == -1:
        last = s.rfind("}")
        if last < start:
            return None, "invalid"
        sub = s[start:last + 1] + "]"           # truncated list closed after the last object
    else:
        sub = s[start:end + 1]
    try:
        if not _literal(sub):
            return None, "invalid"
    except Exception:
        return None, "invalid"
    sub = _PARENS.sub("", _TITLE.sub(r"\1", sub))
    try:
        data = _literal(sub)
    except Exception:
        return None, "invalid"
    return data, "verbose"


# ---- faithful repair: the reference's ``extract_and_convert_to_dict`` decisions, step by step ----
# Replacements (old, new) applied in the reference's order, each only where ``old`` occurs. The
# oddly specific ones were written for single responses of the authors' data; they are kept so
# the same text gets the same decision.
_REF_PRE = (('"Years": 2', '"Years": "2'), ('0},', '0"},'), ('.}', '."}'),   # [!] '0},' breaks "1950-1960"},
            ('"Namename"', '"Name"'), ('"Noame"', '"Name"'), ('"Nime"', '"Name"'), ("'Näme'", '"Name"'),
            ('"), {"Name"', '"}, {"Name"'), ('"}, "Years":', '", "Years":'), (',}, ]', '"}]'),
            ('",   {"Name":', '"}, {"Name":'),
            ('{"Name": {"Name": "Freeman Dyson", "Years": "1950-1960"}}', '{"Name": "Freeman Dyson", "Years": "1950-1960"}'))
_REF_NESTED = re.compile(r'\{\s*(?P<q>"|\')Name(?P=q)\s*:\s*\{\s*(?P=q)Name(?P=q)\s*:\s*(?P=q)(?P<val>[^"\']*?)(?P=q)\s*\}\s*\}')
# (marker, how): 'before' keeps the text before the marker, 'after' the text after its first
# occurrence; the callables are the reference's one-off edits.
_REF_GARBAGE = (
    (',     {"Name": "Tatiana "Tanya" Evans (astronomer)"},', "before"),
    ('{})  AngiePhraseIn MIN nan--;', lambda s, m: s.split(m)[0] + '"'),
    ('{"Name": "Marie G\u7dce bite.Job Pamela Gay', "before"),
    (',   {"Name": "Sin\u2011Iou\u200c\u0c32\u0c41 D\xf6rfEchtthank}^{remotepoint.scatter/blob)', "before"),
    (',   {"Name":"Walter H"}', lambda s, m: s.split(m)[0].replace("K\xfc},  // placeholder accidental", 'K\xfc"}, ')),
    (':  {"Name": "', lambda s, m: "[{" + s.split(":  {")[-1]),
    ('{"nomyfut": -12.3}', lambda s, m: s.split(', {"nomyfut": -12.3}')[0]),
)
_REF_NAME_FIXES = (("Namer:  P", 'Name": "P'), ("Name ", '"Name": '),           # [!] any "Name " in prose too
                   ("NameMaria", 'Name": "Maria'), ("NameCharles", 'Name": "Charles'),
                   ("NameClaude", 'Name": "Claude'), ("NamePhilip", 'Name": "Philip'))
_REF_VERBOSE = (
    ("While many distinguished individuals", "before"), ("Given the critique", "before"),
    ("Note: This response is illustrative", "before"), ("**Reasoning and Verification:**", "before"),
    ("### Updated Output ###", lambda s, m: s.split(m)[1].split("###")[0]),
    ("### Output ###", lambda s, m: s.replace(m, "").split("]")[0]),
    ("### Reasoning Explanation ###", "before"), ("### Reasoning Explanation  The", "before"),
    ("### Output in JSON Array Format: ```", lambda s, m: s.split(m)[1].split("```")[0]),
    ("No replacement -  ", "after"), ("'s colleague:  ", "after"), ("'s contemporary,  ", "after"),
    (", replacing with: ", "after"),
)
# [!] exact strings: a pretty-printed wrapper ('{   "Scientists": [') is not unwrapped
_REF_WRAPPERS = ('[{"Physicists": [', '{"physicists": [', '{"Physicists": [', '{"Scientists": [')
_REF_TITLE = re.compile(r"^(?:Dr|Mr|Mrs|Ms|PhD)\.\s*")   # anchored at the '[': never fires [!]


def _apply(s: str, rules) -> str:
    for marker, how in rules:
        if marker in s:
            s = s.split(marker)[0] if how == "before" else s.split(marker)[1] if how == "after" else how(s, marker)
    return s


def _repair_faithful(content: str | None) -> tuple[Any, str]:
    """The reference's repair (``extract_and_convert_to_dict``), decision for decision: (list or
    None, 'verbose' | 'invalid' | 'provider_error').

    After the string fixes it takes the text from the first '[' to the first ']' and rejects it
    unless it literal-evaluates to a non-empty value, so a wrapper the exact-string unwrap misses
    (pretty-printed ``{"Scientists": [ ... ]}``) is cut inside the list and fails [!]. With no ']'
    a truncated list is closed after its last '}', unless ``start + last_curly > len`` (the
    bound adds two positions: a truncated list after a text preamble longer than what follows
    its '[' is rejected [!]). Every surviving response is flagged verbose (the unconditional
    title/parenthesis strip sets it last [!]).
    """
    if content is None:
        return None, "provider_error"
    s = content.replace("\n", " ").replace("\r", " ").replace("\t", " ").replace("\\", "").replace("...", "")
    s = s.replace("```json", " ").replace("```", " ")
    for a, b in _REF_PRE:
        s = s.replace(a, b)
    if '{"Name": {"Name":' in s:
        s = _REF_NESTED.sub(r"{\g<q>Name\g<q>: \g<q>\g<val>\g<q>}", s)
    s = _apply(s, _REF_GARBAGE)
    for a, b in _REF_NAME_FIXES:
        s = s.replace(a, b)
    s = _apply(s, _REF_VERBOSE)
    for w in _REF_WRAPPERS:
        s = s.replace(w, "[")
    if "} ]}  The scientists" in s:
        s = s.split("} ]}  The scientists")[0] + "}]"
    if "is as follows:" in s:
        s = "[" + s.split("is as follows:")[1] + "]"
    if s.startswith("[  [ {"):
        s = s.replace("[  [ {", "[ {")
    if s.endswith("} ]}"):
        s = s.replace("} ]}", "}]")
    if s.strip().replace(" ", "").startswith("{"):
        s = "[" + s
    if s.strip().replace(" ", "").endswith("}"):
        s = s + "]"
    start, end = s.find("["), s.find("]")
    if start == -1:
        return None, "invalid"
    if end != -1:
        sub = s[start:end + 1]
        try:
            if len(_literal(sub)) == 0:
                return None, "invalid"
        except Exception:
            return None, "invalid"
    else:
        last = s.rfind("}")
        if last == -1 or last < start or start + last > len(s):
            return None, "invalid"
        sub = s[start:last + 1] + "]"
    sub = _PARENS.sub("", _REF_TITLE.sub("", sub))
    try:
        return _literal(sub), "verbose"
    except Exception:
        return None, "invalid"


def _final_faithful(data: Any, flag: str) -> tuple[list | None, str]:
    """The reference's checks after a repair (``_get_extracted_data`` + ``_final_validation_response``).

    Faithful [!]: the list is rejected unless its *first* element is a dict; a set element keeps
    one of its members (``list(set)[0]``), an empty dict is dropped silently, the word count
    splits on single spaces; the response label is the last element flag (truncated-dict /
    skipped-item, both not valid) or the repair's. A non-string Name that the "every name
    starts with Scientist" test reaches raises in the reference, which then drops the attempt
    from its tables; here it is labelled invalid.
    """
    if not data:
        return None, flag if data is not None else "invalid"
    if not isinstance(data, list) or not isinstance(data[0], dict):
        return None, "invalid"
    out, elem_flag = [], None
    for elem in data:
        if isinstance(elem, (set, frozenset)):
            elem, elem_flag = {"Name": next(iter(elem))}, "truncated-dict"
        if not isinstance(elem, dict):
            elem_flag = "skipped-item"
            continue
        if "Name" not in elem and "" in elem:
            elem = {**{k: v for k, v in elem.items() if k != ""}, "Name": elem[""]}
            elem_flag = "truncated-dict"
        if any(k not in _ALLOWED_KEYS for k in elem):
            elem_flag = "skipped-item"
            continue
        if any(isinstance(elem.get(k), str) and (len(elem[k].split(" ")) > 10 or len(elem[k]) > 100)
               for k in _TEXT_KEYS if k in elem):
            elem_flag = "skipped-item"
            continue
        if elem:
            out.append(elem)
    if not all("Name" in e for e in out) or any("error" in e for e in out):
        return None, "invalid"
    for e in out:                                   # all(name.startswith('Scientist')), short-circuiting
        if not isinstance(e["Name"], str):
            return None, "invalid"                   # the reference raises here (attempt dropped)
        if not e["Name"].startswith("Scientist"):
            break
    else:
        return None, "invalid"
    return out, elem_flag or flag


def _final_validation(data: Any) -> tuple[list | None, str | None]:
    """``_final_validation_response``: per-element checks; (kept elements or None, element flag)."""
    if not isinstance(data, (list, tuple)):
        data = [data]
    flag, out = None, []
    for elem in data:
        if isinstance(elem, (set, frozenset)):
            elem, flag = {"Name": " ".join(sorted(map(str, elem)))}, "truncated-dict"
        if not isinstance(elem, dict):
            flag = "skipped-item"
            continue
        if "" in elem:
            elem = {("Name" if k == "" else k): v for k, v in elem.items()}
            flag = "truncated-dict"
        if any(k not in _ALLOWED_KEYS for k in elem):
            flag = "skipped-item"
            continue
        if any(isinstance(elem.get(k), str) and (len(elem[k].split()) > 10 or len(elem[k]) > 100) for k in _TEXT_KEYS):
            flag = "skipped-item"
            continue
        out.append(elem)
    names = [e.get("Name") for e in out]
    if (not out or any("Name" not in e or "error" in e for e in out)
            or all(isinstance(n, str) and n.startswith("Scientist") for n in names)):
        return None, "invalid"
    return out, flag


# §2.2 per-name filters
_SKIP_EXACT = {"no specific scientists found", "i was unable to",
               "it appears that there is limited publicly available information",
               "no physicists meet the specified criteria",
               "no specific scientists identified due to the uniqueness and complexity of the criteria", "none"}
_SKIP_CONTAINS = tuple(s.lower() for s in (
    "No matching", "No applicable", "meet the criteria", "No relevant", "scientists", "No valid", "Other Scientist",
    "physicist", "researcher", "University", "Laboratory", "data not available", "RADIO ASTRONOMY TEAM",
    "Nuclear Reactor Team", "Nobel Prize", "Full Name"))
_CUT_BEFORE = (", 7th duc de Broglie", "Dr. ")
_KEEP_AFTER = ("'s contemporary, ", "'s collaborator, ", "instead, ", "'s colleague, ")


def extract_names(items: list, *, corrected: bool = False) -> list[dict]:
    """Name rows of one valid/verbose response (reference §2.2), each {name, years, doi, career_age, flag}.

    Faithful [!]: text after "Dr. " is dropped (so "Dr. X" becomes the empty string and is kept),
    and the row flag is never reset, so after the first fix or skip every later row carries it.
    Corrected: "Dr. " is removed as a prefix and each row has its own flag.
    """
    rows, flag = [], None
    for elem in items or []:
        if corrected:
            flag = None
        if not isinstance(elem, dict):
            flag = "skipped-item"
            continue
        name = elem.get("Name")
        if isinstance(name, dict):
            name = name.get("Name") or " ".join(str(name.get(k, "")) for k in ("First Name", "Last Name")).strip()
        if name is None or (isinstance(name, float) and name != name):
            flag = "skipped-item"
            continue
        name = str(name)
        for marker in _CUT_BEFORE:
            if marker in name:
                name = name.replace(marker, "", 1) if corrected and marker == "Dr. " else name.split(marker)[0]
                flag = "fixed"
        low = name.lower()
        if (len(name.split("(")[0]) >= 100 or low in _SKIP_EXACT or any(s in low for s in _SKIP_CONTAINS)
                or ("colleague" in low and ("student" in low or "contemporary" in low))
                or low.count("colleague") >= 2 or " but her colleague" in low):
            flag = "skipped-item"
            continue
        for marker in _KEEP_AFTER:
            if marker in name:
                name = name.split(marker)[-1]
                flag = "fixed"
        rows.append({"name": name, "years": elem.get("Years"), "doi": elem.get("DOI"),
                     "career_age": elem.get("Career Age"), "flag": flag})
    return rows


def gemini_failure_label(error_text: str | None) -> str:
    """Reference §2.1 rule 1, a Gemini final failure (no ``full_api_response``): ``server_error``
    if the error text contains 'internal_server_error', else ``rate_limit`` if it contains
    'rate_limit_exceeded', else ``invalid`` [!] (e.g. "504 Deadline Exceeded": a failed request
    the reference files with the unusable answers; the paper's seven labels call it API error)."""
    text = error_text or ""
    if "internal_server_error" in text:
        return "server_error"
    return "rate_limit" if "rate_limit_exceeded" in text else "invalid"


#: The reference's EXPERIMENT_OUTPUT_INVALID_FLAGS: labels whose message is the answer itself.
MESSAGE_IS_ANSWER = ("truncated-dict", "fixed", "skipped-item", "invalid", "rate_limit", "server_error",
                     "provider_error", "illustrative", "empty")


def reference_full_answer(rec: dict) -> str | None:
    """``choices[0].message.content`` of what the reference calls ``full_api_response`` (its
    ``full_answer``, reference §2.1), None without choices. A Gemini response never has choices
    there (the reference's Gemini client saves ``{model, prompt, response, ...}``): an imported
    Gemini file, a record whose response says ``provider: gemini``, or one from Google's endpoint."""
    api = _api_response(rec)
    if (not isinstance(api, dict) or api.get("provider") == "gemini"
            or "googleapis.com" in str(rec.get("base_url") or "")):
        return None
    choices = api.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    msg = choices[0].get("message")
    return msg.get("content") if isinstance(msg, dict) else None


def reference_label(rec: dict, *, corrected_names: bool = False, corrected: bool = False) -> dict:
    """Faithful label of one attempt record (reference §2.1, then the §2.2 summary fix).

    The repair of a response the LLMCaller rejected is the reference's (:func:`_repair_faithful`,
    quirks included); ``corrected=True`` uses the companion's repair instead (:func:`_repair`):
    wrappers unwrapped however they are spaced, truncated lists closed after their last complete
    object whatever precedes them, titles stripped inside names, so such answers stay verbose.

    Returns ``{label, is_valid, message, items, names}``: ``items`` the extracted list, ``names``
    the §2.2 name rows (only for valid/verbose), ``message`` the reference's
    ``result_original_message``: the answer (:func:`reference_full_answer`) when the label before
    the §2.2 no-name fix is one of :data:`MESSAGE_IS_ANSWER` (``[]`` for an empty answer), else the
    LLMCaller's message (a Gemini answer has none: "No JSON-like structure found…", "Validation
    successful" for its ``[]``; an answer whose names all fail §2.2 keeps "Validation successful").
    A Gemini final failure (imported file without ``full_api_response``) follows rule 1
    (:func:`gemini_failure_label` of the file's ``error`` text: server_error / rate_limit / invalid).
    Other API errors come out as ``provider_error`` (the stored response has no ``choices``), or
    ``rate_limit`` when the message carries 'rate_limit_exceeded'. The repair reads
    :func:`repair_text` (a chosen part of a grounded Gemini answer, else the content).
    """
    val = _validation(rec)
    message = val.get("message") or ""
    if is_gemini_final_failure(rec):
        rr = _release_record(rec) or {}
        err = rec.get("error")
        text = rr.get("error") if isinstance(rr.get("error"), str) else (
            err.get("message") if isinstance(err, dict) else err if isinstance(err, str) else None)
        return {"label": gemini_failure_label(text), "is_valid": False, "message": message, "items": None,
                "names": []}
    if rec.get("status", "ok") != "ok" or not (rec.get("response") or {}).get("choices"):
        err = rec.get("error") or {}
        if rec.get("status", "ok") != "ok" and err.get("kind") == "body_error":
            message = f"API returned error response: {err.get('message', '')}"
        label = "rate_limit" if "rate_limit_exceeded" in message else "provider_error"
        return {"label": label, "is_valid": False, "message": message, "items": None, "names": []}
    data = None
    if val.get("is_valid"):
        data = val.get("extracted_data")
        label = "empty" if data == [] else "valid"
    elif message == NO_JSON or message.startswith(("Invalid JSON format: Expecting property name", "Invalid JSON format: Invalid")) or (
            message.startswith("Invalid JSON format: Expecting")
            and not message.startswith(("Invalid JSON format: Expecting value: ", "Invalid JSON format: Expecting ','"))):
        label = "invalid"
    else:
        text = repair_text(rec)
        if text is None and _answer_parts(rec) is not None:
            data, label = None, "invalid"
        elif corrected:
            data, label = _repair(text)
            if data is not None:
                data, element_flag = _final_validation(data)
                label = "invalid" if data is None else (element_flag or label)
        else:
            data, label = _repair_faithful(text)
            if label == "verbose":
                data, label = _final_faithful(data, label)
    # the message is the reference's _process_file choice, made before §2.2's no-name fix
    full = reference_full_answer(rec)
    if label in MESSAGE_IS_ANSWER and full is not None:
        message = full
    names: list[dict] = []
    if label in VALID_FLAGS:
        names = extract_names(data if isinstance(data, list) else [data], corrected=corrected_names)
        if not names:
            label, data = "invalid", None
    is_valid = bool(data) and label != "invalid"
    return {"label": label, "is_valid": is_valid, "message": message, "items": data, "names": names}


# ---- 3. the paper's seven labels ------------------------------------------------------------
PAPER_LABELS = ("valid", "verbose", "fixed", "skipped", "refused", "API error", "invalid")
_PLACEHOLDER = re.compile(r"^\s*(scientist|name|author|physicist|researcher)\s*(\d+|[a-z]|#+)?\s*$", re.IGNORECASE)
_NAME_KEYS = re.compile(r"^\W*(name|full[ _]?name|namename|noame|nime|näme|scientist|scientist[ _]name|author)\W*$",
                        re.IGNORECASE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _loads(s: str) -> tuple[Any, bool]:
    """(value, repaired): JSON first, then a Python literal (single quotes) counts as a repair."""
    try:
        return json.loads(s), False
    except (ValueError, RecursionError):
        pass
    try:
        return _literal(s), True
    except Exception:
        return None, False


def _outer_list(s: str) -> str | None:
    a, b = s.find("["), s.rfind("]")
    return s[a:b + 1] if a != -1 and b > a else None


def _first_json_list(s: str) -> list | None:
    """The first JSON array (holding at least one object) that decodes at one of the first 20 '['."""
    dec, i = json.JSONDecoder(), s.find("[")
    for _ in range(20):
        if i == -1:
            return None
        try:
            value, _ = dec.raw_decode(s, i)
            if isinstance(value, list) and any(isinstance(v, dict) for v in value):
                return value
        except (ValueError, RecursionError):
            pass
        i = s.find("[", i + 1)
    return None


_BARE_PAIR = re.compile(r'([{,]\s*)([A-Za-z][A-Za-z ]{0,20}?)\s*:\s*([^"{}\[\],:][^"{}\[\]:]*?)\s*(?=[,}]|$)')


def _quote_bare(s: str) -> str:
    """``{Name: Jane Doe}`` -> ``{"Name": "Jane Doe"}`` (keys and values the model left unquoted)."""
    return _BARE_PAIR.sub(lambda m: f'{m.group(1)}"{m.group(2).strip()}": "{m.group(3).strip()}"', s)


def _parse_list(content: str) -> tuple[Any, str]:
    """(parsed value, how): how is 'strict', 'embedded' (verbose) or 'repaired' (fixed); None if none."""
    text = content.strip()
    value, rep = _loads(text)
    if value is not None and not rep:
        return value, "strict"
    body = _THINK.sub(" ", text)
    candidates = [m.group(1) for m in _FENCE.finditer(body)] + [body]
    for cand in candidates:
        value = _first_json_list(cand)
        if value is not None:
            return value, "embedded"
    for cand in candidates:
        sub = _outer_list(cand)
        if sub is not None:
            value, rep = _loads(sub)
            if value is not None:
                return value, "repaired" if rep else "embedded"
    for cand in candidates:                      # a wrapper object {"Scientists": [...]}
        a, b = cand.find("{"), cand.rfind("}")
        if a != -1 and b > a:
            value, _ = _loads(cand[a:b + 1])
            if isinstance(value, dict):
                return value, "repaired"
    quoted = [q for q in (_quote_bare(c) for c in candidates) if q not in candidates]
    candidates += quoted
    for cand in quoted:                          # bare keys/values, now quoted
        sub = _outer_list(cand)
        if sub is not None:
            value, _ = _loads(sub)
            if value is not None:
                return value, "repaired"
    for cand in candidates:                      # a truncated list: close after the last full object
        a, b = cand.find("["), cand.rfind("}")
        if a != -1 and b > a:
            value, _ = _loads(cand[a:b + 1] + "]")
            if value is not None:
                return value, "repaired"
        a = cand.find("{")
        if a != -1 and b > a:                    # objects without brackets
            value, _ = _loads("[" + cand[a:b + 1] + "]")
            if value is not None:
                return value, "repaired"
    return None, "none"


def paper_label(rec: dict) -> dict:
    """The paper's seven labels for one attempt (paper §3.2, corrected mode).

    - API error: the request failed (timeout, 5xx, 429 after retries, an error body, no choices);
    - valid: the answer is exactly a JSON array of objects with usable names;
    - verbose: the same list, embedded in extra text (preamble, fences, reasoning, notes);
    - fixed: a list recovered by repair (wrapper object, truncated list, Python quoting,
      misspelled name keys, bare strings);
    - skipped: a list from which some elements were dropped (placeholders such as "Scientist 3",
      non-objects, missing or overlong names); the rest are kept;
    - refused: no usable list and the text states non-compliance (corrected keyword detection);
    - invalid: no usable list otherwise (empty, nonsense, unparsable).
    Precedence: API error, then (no list: refused/invalid), then fixed, skipped, verbose, valid.
    Returns ``{label, items, n_dropped}``; ``items`` are ``{"Name": ..., ...}`` dicts.
    """
    if rec.get("status", "ok") != "ok" or not (rec.get("response") or {}).get("choices"):
        return {"label": "API error", "items": [], "n_dropped": 0}
    content = rec.get("content") or ""
    value, how = _parse_list(content) if content.strip() else (None, "none")
    repaired = how == "repaired"
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        value, repaired = (lists[0] if lists else [value]), True
    items, dropped = [], 0
    for elem in value if isinstance(value, list) else []:
        if isinstance(elem, str):
            elem, repaired = {"Name": elem}, True
        if not isinstance(elem, dict):
            dropped += 1
            continue
        if "Name" not in elem:
            key = next((k for k in elem if isinstance(k, str) and _NAME_KEYS.match(k)), None)
            if key is not None:
                elem, repaired = {("Name" if k == key else k): v for k, v in elem.items()}, True
        name = elem.get("Name")
        if (not isinstance(name, str) or not name.strip() or _PLACEHOLDER.match(name)
                or len(name) > 100 or len(name.split()) > 10):
            dropped += 1
            continue
        items.append(elem)
    if not items:
        label = "refused" if detect_refusal(content, corrected=True) == 1 else "invalid"
        return {"label": label, "items": [], "n_dropped": dropped}
    label = "fixed" if repaired else "skipped" if dropped else "verbose" if how != "strict" else "valid"
    return {"label": label, "items": items, "n_dropped": dropped}


# ---- tables ---------------------------------------------------------------------------------
REQUEST_KEYS = ("experiment", "model", "task", "param", "temperature", "replicate")


def label_record(rec: dict, *, corrected: bool = False) -> dict:
    """Both label sets and the refusal flags of one attempt record, as one flat row.

    ``label_repair_corrected`` / ``names_repair_corrected`` (faithful only): the label and name rows
    under the companion repair (:func:`reference_label` ``corrected=True``) where they differ from
    the reference's, else None (:func:`lib.scholar.quirks.corrected_decisions` reads them).
    ``result_original_output`` is :func:`original_output` (faithful: None for an infrastructure
    failure or a Gemini final failure; ``corrected=True``: the failure message). ``is_refusal``
    (reference keyword list) and ``is_refusal_corrected`` read that text, else the result message,
    as reference §2.4 does; -1 when neither exists. ``corrected`` also switches the §2.2 name fixes.
    """
    rec = {k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()}   # NaN from a table
    ref = reference_label(rec, corrected_names=corrected, corrected=corrected)
    # faithful: also the label under the companion repair (a corrected decision), kept only where it differs
    alt = None if corrected or ref["label"] in ("valid", "empty") else reference_label(rec, corrected=True)
    if alt is not None and alt["label"] == ref["label"] and alt["names"] == ref["names"]:
        alt = None
    pap = paper_label(rec)
    out = original_output(rec, corrected=corrected)
    # refusal text (reference §2.4): the raw output, else the result message (e.g. for a failed request)
    refusal_text = out if out is not None else (ref["message"] or None)
    return {
        **{k: rec.get(k) for k in (*REQUEST_KEYS, "attempt")},
        "label_reference": ref["label"], "label_paper": pap["label"],
        "result_is_valid": ref["is_valid"], "result_original_message": ref["message"],
        "result_original_output": out,
        "items_reference": ref["items"], "names_reference": ref["names"], "items_paper": pap["items"],
        "n_dropped_paper": pap["n_dropped"],
        "label_repair_corrected": alt["label"] if alt else None, "names_repair_corrected": alt["names"] if alt else None,
        "is_refusal": detect_refusal(refusal_text), "is_refusal_corrected": detect_refusal(refusal_text, corrected=True),
    }


def set_attempt_validity(df, label_col: str = "label", keys=REQUEST_KEYS):
    """Mark one attempt per request as ``valid_attempt`` (reference §2.2 ``set_attempt_validity``).

    Per request (experiment, model, task, param, temperature, replicate): the lowest-numbered
    ``valid`` attempt, else the lowest-numbered ``verbose`` one; none if neither exists (paper
    §3.2: "we retain only the first valid attempt per prompt").
    """
    df = df.copy()
    df["valid_attempt"] = False
    cand = df[df[label_col].isin(VALID_FLAGS)]
    if len(cand):
        rank = cand[label_col].map({"valid": 0, "verbose": 1})
        order = cand.assign(_r=rank).sort_values(["_r", "attempt"], kind="stable")
        chosen = order.groupby(list(keys), dropna=False, sort=False).head(1).index
        df.loc[chosen, "valid_attempt"] = True
    return df


def label_attempts(records, *, mode: str = "faithful"):
    """Label a table (or list) of attempt records: one row per attempt, both label sets.

    ``mode='faithful'`` (default) sets ``label`` to the reference's label (§2.1-2.2) and picks
    ``valid_attempt`` from it; ``mode='paper'`` uses the paper's seven labels (corrected names,
    refusal as a label). Both label columns are always present, so the report can show either.
    A chunk of rows in, a table out (DESIGN §5b).
    """
    import pandas as pd

    if mode not in ("faithful", "paper"):
        raise ValueError(f"label_attempts: mode must be 'faithful' or 'paper', got {mode!r}")
    rows = records.to_dict("records") if isinstance(records, pd.DataFrame) else list(records)
    out = pd.DataFrame([label_record(r, corrected=(mode == "paper")) for r in rows],
                       columns=[*REQUEST_KEYS, "attempt", "label_reference", "label_paper", "result_is_valid",
                                "result_original_message", "result_original_output", "items_reference",
                                "names_reference", "items_paper", "n_dropped_paper", "label_repair_corrected",
                                "names_repair_corrected", "is_refusal", "is_refusal_corrected"])
    out.insert(len(REQUEST_KEYS) + 1, "label", out["label_reference"] if mode == "faithful" else out["label_paper"])
    out = set_attempt_validity(out)
    out.attrs["label_mode"] = mode
    return out


def name_rows(labelled, *, only_valid_attempt: bool = True, mode: str | None = None):
    """One row per recommended name of the chosen attempts (reference ``valid_responses``).

    Faithful labels use the §2.2 name rows; paper labels use the kept list items. Columns:
    request keys, attempt, label, name, years, doi, career_age, flag. ``mode`` defaults to the
    one :func:`label_attempts` used.
    """
    import pandas as pd

    mode = mode or labelled.attrs.get("label_mode", "faithful")
    df = labelled[labelled["valid_attempt"]] if only_valid_attempt else labelled[labelled["label"].isin(VALID_FLAGS)]
    rows = []
    for r in df.itertuples(index=False):
        base = {k: getattr(r, k) for k in (*REQUEST_KEYS, "attempt", "label")}
        if mode == "faithful":
            names = r.names_reference
        else:
            names = [{"name": str(e.get("Name")), "years": e.get("Years"), "doi": e.get("DOI"),
                      "career_age": e.get("Career Age"), "flag": None} for e in r.items_paper]
        rows.extend({**base, **n} for n in names)
    return pd.DataFrame(rows, columns=[*REQUEST_KEYS, "attempt", "label", "name", "years", "doi", "career_age", "flag"])
