"""The tools that can cost credits, and the one that says what they would cost.

``generate_from_text`` and ``generate_from_image`` answer at once: the library first (an identical
request is offered for reuse, free, before anything is sent), then the session's budget (a call
that would go over is refused), then the host starts the job and the answer carries its id.
``estimate_cost`` asks the same questions and sends nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..checks.inputs import MAX_PROMPT_CHARS, MAX_URL_CHARS, check_prompt
from ..errors import InputError, KilnError
from ..features.credits import request_cost
from ..jobs import JobRequest
from ..jobs.service_side import refusal_of
from ..services import Tier, info, old_records_service, service_ids
from . import images, words
from .arguments import ArgumentError, Arguments, Choice, Field, Flag, Number, Text
from .bridge import HostBusy
from .calls import Call
from .host import AgentRequest, LibraryMatch
from .results import ToolResult, job_json, refused, with_budget

AUTO = "auto"
MAX_NAME_CHARS = 63  # Blender's longest object name
MAX_COUNT = 100


def _as_is(value: str) -> str:
    return value


PROMPT = Text(
    "What to make, in words (for example 'a red wooden chair'). Plain text, no control characters.",
    MAX_PROMPT_CHARS,
    check_with=check_prompt,
)
#: The service whose quality is a resolution (the ``resolution`` argument): its tiers, from its package.
RESOLVED = info(old_records_service()).capabilities


def _resolution_choice(kind: str, default: str) -> Choice:
    """The ``resolution`` argument of a job of ``kind``: the resolution service's tiers, in its words."""
    tiers: tuple[Tier, ...] = RESOLVED.tiers(kind)

    def said(tier: Tier) -> str:
        price = f", {tier.credits} credits" if tier.credits is not None else ""
        return f"{tier.id.lower()} ({tier.label.tip.lower()}{price})"

    described = (
        "Mesh resolution (services whose quality is a resolution): " + ", ".join(map(said, tiers)) + "."
    )
    return Choice(described, tuple(tier.id.lower() for tier in tiers), default.lower())


TEXT_RESOLUTION = _resolution_choice("text", RESOLVED.default_tier("text"))
IMAGE_RESOLUTION = _resolution_choice("image", RESOLVED.default_tier("image"))
NAME = Text(
    "The object's name in the scene (optional; the prompt or the image's name otherwise).", MAX_NAME_CHARS
)
REUSE = Choice(
    "When an identical request is already in the Kiln asset library: ask (answer with the offer, "
    "nothing is sent), always (place the library's copy in the scene, free), never (generate a new one).",
    ("ask", "always", "never"),
    "ask",
)
IMAGE_BASE64 = Text(
    "The image as base64 data (a data: address is fine): PNG, JPEG or WebP, at most 20 MB once decoded.",
    images.MAX_BASE64_CHARS,
    check_with=_as_is,
)
IMAGE_URL = Text(
    "The image's https address; the service fetches it.", MAX_URL_CHARS, check_with=images.from_url
)
IMAGE_PATH = Text(
    "The full path of a PNG, JPEG or WebP file inside a folder the artist allowed in Kiln's preferences "
    "(none by default).",
    images.MAX_PATH_CHARS,
    check_with=_as_is,
)
IMAGE_FIELDS = {"image_base64": IMAGE_BASE64, "image_url": IMAGE_URL, "image_path": IMAGE_PATH}
SERVICE = Choice(
    "Which 3D generation service makes it, by its id in Kiln. Left out: the service the artist chose "
    "in Kiln. Each has its own prices; the resolution applies only to a service whose quality is a "
    "resolution (the others use their default quality).",
    read=service_ids,
)

#: The options, one name each across services; one left out is the service's own default, and one
#: the service lacks is refused with its sentence (nothing is sent).
OPTION_FIELDS: dict[str, Field] = {
    "pbr": Flag("PBR materials (base colour, metal, roughness, normal maps). Not every service takes it."),
    "quad": Flag("A mesh of four-sided faces. Not every service takes it."),
    "texture": Flag("Textured (true) or the shape alone (false, cheaper where the service says so)."),
    "polygons": Number(
        "The polygon budget (each service has its own range); 0: the service's default.",
        0,
        1_000_000,
        whole=True,
    ),
    "style": Text(
        "One of the service's own style ids (for example Meshy's 'sculpture'), where it has styles.", 60
    ),
}
VIEW_SIDES = ("back", "left", "right")
#: More views of the same object after the front, each given the same ways as the front.
VIEW_FIELDS: dict[str, Field] = {
    f"{side}_{how}": Text(
        f"The {side} view of the same object (optional; only on a service that takes several images). "
        + spec.description,
        spec.max_length,
        check_with=spec.check_with,
    )
    for side in VIEW_SIDES
    for how, spec in IMAGE_FIELDS.items()
}

TEXT_ARGUMENTS = Arguments(
    {
        "prompt": PROMPT,
        "resolution": TEXT_RESOLUTION,
        "name": NAME,
        "reuse": REUSE,
        "service": SERVICE,
        **OPTION_FIELDS,
    },
    required=("prompt",),
)
IMAGE_ARGUMENTS = Arguments(
    {
        **IMAGE_FIELDS,
        **VIEW_FIELDS,
        "resolution": IMAGE_RESOLUTION,
        "name": NAME,
        "reuse": REUSE,
        "service": SERVICE,
        **OPTION_FIELDS,
    }
)
ESTIMATE_ARGUMENTS = Arguments(
    {
        "prompt": PROMPT,
        **IMAGE_FIELDS,
        **VIEW_FIELDS,
        **OPTION_FIELDS,
        "service": SERVICE,
        "resolution": _resolution_choice("text", RESOLVED.default_tier("text")),
        "count": Number("How many such jobs.", 1, MAX_COUNT, default=1, whole=True),
    }
)


def _resolution(choice: str) -> int | None:
    return None if choice == AUTO else int(choice)


def _name(args: dict[str, Any]) -> str:
    return str(args.get("name", ""))


def image_ask(call: Call, args: dict[str, Any], resolution: int | None) -> AgentRequest:
    """The image job the arguments ask for (exactly one way of giving the image), checked."""
    given = [name for name in IMAGE_FIELDS if name in args]
    if len(given) != 1:
        raise ArgumentError(words.ONE_IMAGE)
    image: bytes | None = None
    url = ""
    name = _name(args)
    if "image_base64" in args:
        image = images.from_base64(args["image_base64"])
    elif "image_path" in args:
        image = images.from_file(args["image_path"], call.allowed_folders)
        name = name or Path(args["image_path"]).stem[:MAX_NAME_CHARS]  # Kiln keeps a copy under its own name
    else:
        url = args["image_url"]
    views, view_data = _views(call, args)
    request = JobRequest(kind="image", image_url=url, resolution=resolution, name=name, views=views)
    # Judged with every view given (one sent as data has no path until the host saves it).
    judged = tuple(a or ("data" if d is not None else "") for a, d in zip(views, view_data, strict=True))
    request = _to_service(call, args, request, judged)
    return AgentRequest(request, image, call.session.agent, view_data)


def _views(call: Call, args: dict[str, Any]) -> tuple[tuple[str, ...], tuple[bytes | None, ...]]:
    """The views after the front by position: an address kept in the request, bytes for the host to
    save (its path filled in then); "" and None where a view is missing, none after the last given."""
    addresses: list[str] = []
    data: list[bytes | None] = []
    for side in VIEW_SIDES:
        given = [how for how in IMAGE_FIELDS if f"{side}_{how}" in args]
        if len(given) > 1:
            raise ArgumentError(words.ONE_VIEW_IMAGE.format(side=side))
        how = given[0] if given else ""
        value = args.get(f"{side}_{how}", "")
        addresses.append(value if how == "image_url" else "")
        if how == "image_base64":
            data.append(images.from_base64(value))
        elif how == "image_path":
            data.append(images.from_file(value, call.allowed_folders))
        else:
            data.append(None)
    while addresses and not addresses[-1] and data[-1] is None:
        addresses.pop()
        data.pop()
    return tuple(addresses), tuple(data)


def text_ask(call: Call, args: dict[str, Any]) -> AgentRequest:
    request = JobRequest(
        kind="text", prompt=args["prompt"], resolution=_resolution(args["resolution"]), name=_name(args)
    )
    return AgentRequest(_to_service(call, args, request), None, call.session.agent)


def _to_service(
    call: Call, args: dict[str, Any], request: JobRequest, views: tuple[str, ...] = ()
) -> JobRequest:
    """The request going to the service the agent named (or the artist's choice), with its options;
    what that service cannot take is refused in its own sentence before anything is sent."""
    given = {name: args[name] for name in OPTION_FIELDS if name in args}
    if not given.get("polygons", 1):
        del given["polygons"]  # 0: the service's default
    options = json.dumps(given, sort_keys=True) if given else ""
    request = request.to_service(args.get("service") or call.host.default_service(), options=options)
    refused = refusal_of(replace(request, views=views or request.views))
    if refused is not None:
        raise InputError(refused)
    return request


def _library(match: LibraryMatch) -> dict[str, str]:
    return {"label": match.label, "date": match.date}


def generate(call: Call, ask: AgentRequest, reuse: str) -> ToolResult:
    """Library first, then the budget, then the host starts the job."""
    budget = call.session.budget
    if reuse != "never" and not ask.views:  # the library keeps single-image requests
        match = call.host.library_match(ask)
        if match is not None and reuse == "always":
            objects = list(call.host.reuse(ask, match))
            structured = {"status": "reused", "library": _library(match), "objects": objects}
            return ToolResult(
                words.reused(match.label, len(objects)), with_budget(structured, budget.spending())
            )
        if match is not None:
            structured = {"status": "in_library", "library": _library(match)}
            return ToolResult(
                words.library_offer(match.label, match.date), with_budget(structured, budget.spending())
            )
    cost = request_cost(ask.request, call.host.text_cost())
    reservation = budget.reserve(cost)
    if isinstance(reservation, str):
        return refused(reservation)
    try:
        view = call.host.submit(ask)
    except HostBusy as exc:
        if not exc.maybe_done:
            budget.release(reservation)
        raise
    except KilnError:
        budget.release(reservation)  # the host says nothing was sent
        raise
    structured = {"status": "started", "job": job_json(view)}
    return ToolResult(words.submitted(view.id, cost), with_budget(structured, budget.spending()))


def generate_from_text(call: Call, args: dict[str, Any]) -> ToolResult:
    return generate(call, text_ask(call, args), args["reuse"])


def generate_from_image(call: Call, args: dict[str, Any]) -> ToolResult:
    return generate(call, image_ask(call, args, _resolution(args["resolution"])), args["reuse"])


def estimate_cost(call: Call, args: dict[str, Any]) -> ToolResult:
    has_image = any(name in args for name in IMAGE_FIELDS)
    if ("prompt" in args) == has_image:
        raise InputError(words.NO_PROMPT_OR_IMAGE)
    if has_image:
        ask = image_ask(
            call, args, _resolution(args["resolution"]) or _resolution(RESOLVED.default_tier("image"))
        )
    else:
        ask = text_ask(call, args)
    jobs = int(args["count"])
    cost = request_cost(ask.request, call.host.text_cost())
    in_library = call.host.library_match(ask) is not None
    budget = call.session.budget
    refusal = budget.refusal(cost, jobs)
    spending = budget.spending()
    structured = {
        "jobs": jobs,
        "credits_per_job": cost,
        "credits_total": None if cost is None else cost * jobs,
        "in_library": in_library,
        "fits_budget": refusal is None,
    }
    text = words.estimate_line(jobs, cost)
    if in_library:
        text += " " + words.IN_LIBRARY_FREE
    text += " " + (refusal or spending.line())
    return ToolResult(text, with_budget(structured, spending))
