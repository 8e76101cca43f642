"""The sentences an agent (and, through it, the artist) reads from Kiln's agent server.

Kept together so the catalogue of every sentence can take them in one move. A sentence is written
whole and count-aware (:func:`count`), says what happened and what to do, and names no internals
beyond the tool and argument names an agent calls Kiln with.
"""

from __future__ import annotations


def count(number: int, one: str, many: str) -> str:
    """``number`` with the noun that fits it: ``count(1, "credit", "credits")`` → "1 credit"."""
    return f"{number:,} {one if number == 1 else many}"


# --- the door (HTTP) ---------------------------------------------------------------------------
NO_TOKEN = (
    "Kiln's agent server needs its access token: send the header 'Authorization: Bearer TOKEN' with "
    "the token from Kiln's preferences (Agents ▸ Copy Client Config)."
)
WRONG_TOKEN = (
    "The access token is not the one Kiln's agent server expects; copy the client configuration again."
)
FOREIGN_HOST = (
    "Kiln's agent server answers only requests addressed to this computer (127.0.0.1 or localhost)."
)
FOREIGN_ORIGIN = "Kiln's agent server does not answer requests made by web pages from other sites."
NOT_FOUND = "Kiln's agent server has one address: /mcp."
METHOD_NOT_ALLOWED = "Kiln's agent server takes POST (messages) and DELETE (ending a session) at /mcp."
TOO_LARGE = "The request is larger than Kiln's agent server accepts ({limit} MB)."
NO_LENGTH = "The request must say its length (Content-Length)."
BAD_LENGTH = "The request's length (Content-Length) is not a number."
SLOW_BODY = "The request did not arrive in time."
NOT_JSON_TYPE = "Kiln's agent server reads JSON messages (Content-Type: application/json)."
NOT_ACCEPTABLE = "The client must accept application/json or text/event-stream answers."
UNSUPPORTED_VERSION = "Kiln's agent server speaks MCP versions {versions}, not {requested}."
NO_SESSION = "Start with initialize: every other message needs the Mcp-Session-Id it answers with."
UNKNOWN_SESSION = "This session has ended (or Kiln was restarted); start a new one with initialize."
SESSION_WITH_INITIALIZE = "initialize starts a new session: send it without an Mcp-Session-Id."
BATCH = "Send one JSON-RPC message per request (MCP has no batches)."
NOT_JSON = "The message is not valid JSON."
NOT_MESSAGE = "The message is not a JSON-RPC 2.0 request, notification or response."
PARAMS_NOT_OBJECT = "The message's params must be an object."
UNKNOWN_METHOD = "Kiln's agent server has no method {method}."
UNKNOWN_TOOL = "Kiln has no tool {name}; tools/list names the tools."
INTERNAL = "Something went wrong inside Kiln; the details are in Blender's system console."
PORT_IN_USE = (
    "Port {port} is taken by another program, so Kiln's agent server could not start there. Choose "
    "another port in Kiln's preferences (Agents), or 0 to let Kiln pick a free one."
)
CANNOT_LISTEN = "Kiln's agent server could not start on port {port}: {reason}."
ENV_HALF = "Set both {port} and {token} to start Kiln's agent server from the environment, or neither."
ENV_BAD_PORT = "{name} must be a port number from 0 (any free port) to 65535."
ENV_WEAK_TOKEN = (
    "{name} must be at least {least} characters of letters, digits and - . _ ~ + / =, so that nobody can "
    "guess it; Kiln's preferences (Agents) can make one."
)

# --- arguments ---------------------------------------------------------------------------------
ARGUMENTS_NOT_OBJECT = "The tool's arguments must be an object."
UNKNOWN_ARGUMENT = "{tool} takes no argument {name}; it takes {known}."
MISSING_ARGUMENT = "{tool} needs the argument {name}."
NOT_TEXT = "{name} must be text."
NOT_INTEGER = "{name} must be a whole number."
NOT_NUMBER = "{name} must be a number."
TEXT_TOO_LONG = "{name} is {length:,} characters long; at most {limit:,} are allowed."
TEXT_EMPTY = "{name} is empty."
TEXT_UNPRINTABLE = "{name} contains control characters; send plain text."
TEXT_PATTERN = "{name} is not in the expected form ({shape})."
NOT_A_CHOICE = "{name} must be one of {choices}."
OUT_OF_RANGE = "{name} must be between {minimum} and {maximum}."
NOT_BOOLEAN = "{name} must be true or false."
ONE_VIEW_IMAGE = (
    "Give the {side} view once: as {side}_image_base64, {side}_image_url or {side}_image_path "
    "(at most one of them)."
)
ONE_IMAGE = "Give the image once: as image_base64, image_url or image_path (exactly one of them)."
NO_PROMPT_OR_IMAGE = "Give a prompt (text job) or an image (image job), not both and not neither."

IN_LIBRARY_FREE = (
    "An identical request is already in the Kiln asset library: reusing it is free (reuse='always')."
)

# --- images ------------------------------------------------------------------------------------
IMAGE_DATA_TOO_LARGE = "The image is {size:.1f} MB; the limit is {limit:.0f} MB."
IMAGE_DATA_NOT_BASE64 = "The image data is not valid base64."
IMAGE_URL_NOT_HTTPS = "The image address must start with https://."
NO_FOLDERS_ALLOWED = (
    "Kiln reads image files only from folders the artist allowed (Kiln's preferences, Agents), and "
    "none is allowed. Send the image as image_base64 or as an https image_url instead."
)
PATH_NOT_ABSOLUTE = "image_path must be a full path (starting at the drive or at /)."
PATH_OUTSIDE = (
    "Kiln reads image files only from the folders the artist allowed, and {path} is not inside one. "
    "Allowed: {folders}."
)
PATH_UNUSABLE = "image_path cannot be used: {reason}."
PATH_CHANGED = "The image file changed while Kiln read it; try again."

# --- jobs --------------------------------------------------------------------------------------
NO_SUCH_JOB = "There is no job {job_id} among the jobs agents asked for; list_jobs names them."
NO_PREVIEW_YET = "Job {job_id} has no preview picture yet; get_job says when it is ready."
PREVIEW_SHOWN = "The preview picture of job {job_id}."
PREVIEW_UNUSABLE = "The preview picture of job {job_id} cannot be shown: {reason}."
NOT_READY_TO_IMPORT = "Job {job_id} has no mesh to import yet; get_job says when it is ready."
MESH_GONE = (
    "The mesh of job {job_id} is no longer in Kiln's cache (the artist may have cleared it), so it cannot "
    "be imported again."
)
UPLOAD_FAILED = "Kiln could not keep the image to send it: {reason}."
LIBRARY_COPY_GONE = (
    "The library's copy is no longer there (the artist may have removed it); call again with "
    "reuse='never' to generate a new one."
)
LIBRARY_COPY_UNREADABLE = "The library's copy of “{label}” could not be opened: {reason}."
SECRET_IN_REQUEST = (
    "The request contains Kiln's access token or the artist's API key; Kiln never sends either "
    "anywhere. Leave it out and call again."
)

# --- the main thread ---------------------------------------------------------------------------
BLENDER_BUSY = (
    "Blender did not answer within {seconds:.0f} seconds (it may be rendering or showing a dialog); "
    "nothing was done. Try again in a moment."
)
BLENDER_BUSY_MAYBE_DONE = (
    "Blender did not finish answering within {seconds:.0f} seconds (it may be rendering or showing a "
    "dialog); the request may still have been carried out. Call list_jobs before asking again."
)
KILN_STOPPING = "Kiln's agent server is stopping (Kiln was disabled or Blender is closing)."


def budget_refused(asked: str, left: str, limit: str) -> str:
    """Why a generate call over the session's budget was refused (nothing was sent)."""
    return (
        f"This would go over the agent budget: it needs {asked}, and this session has {left} of "
        f"{limit} left. Nothing was sent. The artist can raise the budget in Kiln's preferences (Agents)."
    )


def library_offer(label: str, date: str) -> str:
    return (
        f"An identical request is already in the Kiln asset library: “{label}”, made on {date}. Nothing "
        "was sent. Call again with reuse='always' to place the library's copy in the scene (free), or "
        "with reuse='never' to generate a new one (costs credits)."
    )


def reused(label: str, objects: int) -> str:
    return (
        f"Placed the library's copy of “{label}” in the scene (free, nothing was sent): "
        f"{count(objects, 'object', 'objects')}."
    )


def submitted(job_id: str, cost: int | None) -> str:
    price = f"It costs {count(cost, 'credit', 'credits')}." if cost is not None else "Its price is not known."
    return (
        f"Job {job_id} was started. {price} Call get_job with wait_seconds (up to 25) to follow it until "
        "the mesh is in the scene."
    )


def estimate_line(jobs: int, per_job: int | None) -> str:
    if per_job is None:
        return (
            f"The price of a text job is not known (the artist has not set it in Kiln's preferences); "
            f"{count(jobs, 'job counts', 'jobs count')} against the session's job limit only."
        )
    if jobs == 1:
        return f"One job costs {count(per_job, 'credit', 'credits')}."
    return f"{jobs:,} jobs cost {count(per_job * jobs, 'credit', 'credits')} ({per_job:,} each)."


def budget_line(credits_left: int, credits_limit: int, jobs_left: int, jobs_limit: int) -> str:
    return (
        f"This session has {count(credits_left, 'credit', 'credits')} of {credits_limit:,} and "
        f"{count(jobs_left, 'job', 'jobs')} of {jobs_limit:,} left."
    )


def jobs_listed(shown: int, total: int) -> str:
    if total == 0:
        return "No job agents asked for matches."
    if shown < total:
        return f"The newest {shown:,} of {count(total, 'job', 'jobs')} agents asked for."
    return f"{count(total, 'job', 'jobs')} agents asked for."


#: What each job state means, as the end of a sentence starting with the job's name.
STATE_PHRASES = {
    "submitting": "is being sent to the service",
    "queued": "waits at the service",
    "running": "is being generated ({progress:.0f}%)",
    "downloading": "is being downloaded",
    "ready": "is ready; call import_job to bring it into the scene",
    "imported": "is in the scene",
    "failed": "failed",
    "cancelled": "was cancelled",
    "outcome unknown": (
        "may or may not have reached the service (Kiln lost its answer), so Kiln will not send it again"
    ),
    "timed out": "took too long and was stopped",
}


def job_line(
    label: str, state: str, progress: float, error: str, objects: int, triangles: int | None, verdict: str
) -> str:
    """One job in a sentence: its name and state, then the mesh or the reason it failed."""
    phrase = STATE_PHRASES.get(state, "is {state}").format(progress=progress, state=state)
    line = f"“{label}” {phrase}."
    if objects:
        line += f" {count(objects, 'object', 'objects')}"
        line += f", {count(triangles, 'triangle', 'triangles')}" if triangles is not None else ""
        line += f", quality: {verdict}." if verdict else "."
    if error:
        line += f" {error}"
    return line
