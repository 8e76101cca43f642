"""Every sentence, label and tooltip an artist can read from Kiln, written once.

The one catalogue: operators, panels, preferences, reports, job errors, and the service's and the
helper's words as Kiln says them. Each entry is a module-level name (stable: stored messages and
translations refer to entries by it) holding a text, a template with ``{fields}`` (values are
never ours: names, numbers, prompts), a count-aware ``Plural`` (the count is ``n``) or a
``Label`` (a name and its tooltip). Internals (task ids, HTTP statuses, glTF fields, Kiln's own
file paths, process ids, store and log names) never appear here: they go to a message's details,
which Copy Details puts on the clipboard, and to the console. Translations
(``api/words/translations``) key on these texts. ``tests/python/words`` lints it.
"""

from __future__ import annotations

from .kinds import Label, Plural

# ------------------------------------------------------------------ settings and operator arguments
# Made into the preferences' properties and the operators' arguments by ``options.py``.

OPTION_API_KEY = Label(
    "API Key",
    "Your secret key from the service's dashboard (API Keys ▸ Create Secret Key). "
    "Kept in your system's keychain, never in a .blend file",
)
OPTION_BASE_URL = Label("Service Address", "The address of the 3D generation service, starting with https://")
OPTION_POLL_INTERVAL = Label(
    "Check Every", "Seconds between checks on a running job (the service recommends 2 to 3 seconds)"
)
OPTION_MAX_IN_FLIGHT = Label(
    "Jobs at Once", "How many jobs may run on the service at the same time; more wait their turn"
)
OPTION_TIMEOUT_MINUTES = Label(
    "Give Up After",
    "Minutes after which Kiln stops waiting for a job. The job stays in the list, and Resume picks it up",
)
OPTION_AUTO_IMPORT = Label(
    "Import Automatically", "Put finished meshes into the scene as soon as they arrive"
)
OPTION_PLACEMENT = Label("Place At", "Where new meshes appear")
OPTION_PLACEMENT_CURSOR = Label("3D Cursor", "Place new meshes at the 3D cursor")
OPTION_PLACEMENT_ORIGIN = Label("World Origin", "Place new meshes at the world origin")
OPTION_COLLECTION_NAME = Label("Collection", "The collection that receives new meshes")
OPTION_IMPORT_IN_PLACE = Label(
    "Open Meshes in This Blender",
    "Faster, less safe: open each downloaded mesh in this Blender instead of a separate background "
    "Blender. A damaged file could then crash Blender and lose unsaved work. Meshes above the Large "
    "Mesh Limit still open separately",
)
OPTION_LARGE_IMPORT_TRIANGLES = Label(
    "Large Mesh Limit",
    "With Open Meshes in This Blender on, meshes with more triangles than this (or files over 20 MB) "
    "still open in a separate background Blender, so this one does not freeze",
)
OPTION_ORIGIN_AT_BASE = Label("Origin at Base", "Put each new mesh's origin at the centre of its bottom")
OPTION_APPLY_SCALE = Label(
    "Apply Scale",
    "Bake the scale into the mesh (a placeholder's fit included), leaving the object at scale 1",
)
OPTION_SMOOTH_BY_ANGLE = Label(
    "Smooth by Angle", "Shade new meshes smooth, keeping edges sharper than the angle sharp"
)
OPTION_SMOOTH_ANGLE = Label(
    "Angle", "Edges between faces that meet at more than this many degrees stay sharp"
)
OPTION_TARGET_HEIGHT = Label(
    "Height", "Scale new meshes placed at the cursor or the origin to this height (0: as generated)"
)
OPTION_FIX_MERGE = Label("Merge by Distance", "Merge each result's vertices closer than 0.1 mm")
OPTION_FIX_NORMALS = Label("Faces Out", "Turn faces that point inward, so every part faces out")
OPTION_FIX_LOOSE = Label(
    "Delete Small Loose Parts",
    "Delete separate parts with less than this share of a result's triangles (0: keep every part)",
)
OPTION_TRIANGLES = Label(
    "Triangle Budget", "Reduce each result to this many triangles with Blender's Decimate (0: as generated)"
)
OPTION_LODS = Label(
    "LODs", "Levels of detail as shares of the triangles, for example 0.5, 0.25 (empty: none)"
)
OPTION_COLLISION = Label("Collision", "A collision mesh to go with each result")
OPTION_COLLISION_NONE = Label("None", "No collision mesh")
OPTION_COLLISION_HULL = Label("Convex Hull", "A convex hull of the mesh, named for the engine")
OPTION_ENGINE = Label("Engine", "Name the result's parts as this game engine expects")
OPTION_ENGINE_NONE = Label("None", "Blender's names; an export is a GLB file")
OPTION_ENGINE_UNREAL = Label("Unreal", "SM_<Name>, SM_<Name>_LOD1…, UCX_SM_<Name>_00; an FBX file")
OPTION_ENGINE_UNITY = Label(
    "Unity", "<Name>_LOD0…, <Name>_Collider; an FBX file with axes and scale baked for Unity"
)
OPTION_ENGINE_GODOT = Label("Godot", "<Name>, <Name>-convcolonly; a GLB file")
OPTION_EXPORT_ENGINE = Label("Engine", "Which game engine the export is for")
OPTION_EXPORT_ENGINE_UNREAL = Label(
    "Unreal (FBX)", "SM_ names, UCX_ collision, an FBX file in Unreal's units"
)
OPTION_EXPORT_ENGINE_UNITY = Label(
    "Unity (FBX)", "_LODn names, a collider mesh, an FBX file with axes and scale baked"
)
OPTION_EXPORT_ENGINE_GODOT = Label("Godot (GLB)", "-convcolonly collision, a GLB file")
OPTION_EXPORT_ENGINE_GLB = Label("GLB (web)", "Plain names, a GLB file")
OPTION_EXPORT_DIR = Label("Export Folder", "Export each result to this folder as well (optional)")
OPTION_TEXT_COST = Label(
    "Text-to-3D Price",
    "Credits one text-to-3D job costs you; the service does not publish it. "
    "0: not set, so estimates say the price is unknown",
)
OPTION_ASK_ABOVE = Label(
    "Ask Before Spending More Than",
    "Ask before sending anything estimated above this many credits, or of unknown price when it is "
    "more than one job (0: never ask). Scripts in background mode are never asked",
)
OPTION_LIBRARY_DIR = Label(
    "Library Folder",
    "Where every result is also kept as an asset (the Kiln asset library). Empty: a folder of Kiln's own",
)
OPTION_LOG_LEVEL = Label("Console Messages", "How much Kiln writes to the system console")
OPTION_LOG_LEVEL_WARNING = Label("Warnings", "Only warnings and errors")
OPTION_LOG_LEVEL_INFO = Label("Info", "What Kiln does, step by step")
OPTION_LOG_LEVEL_DEBUG = Label("Debug", "Everything, for a bug report; the API key is never written")
OPTION_RESOLUTION = Label(
    "Resolution", "How detailed the mesh is; images need 1024 or 1536 (Service Default sends 1536)"
)
OPTION_IMAGE_RESOLUTION = Label("Resolution", "How detailed the mesh is: 1024 costs 2 credits, 1536 costs 4")
OPTION_RESOLUTION_AUTO = Label("Service Default", "Let the service choose the resolution")
OPTION_RESOLUTION_1024 = Label("1024", "A fast draft")
OPTION_RESOLUTION_1536 = Label("1536", "High detail, slower")
OPTION_REUSE = Label("Reuse", "What to do when an identical request is already in the Kiln asset library")
OPTION_REUSE_ASK = Label(
    "Ask",
    "Offer the library's copy of an identical earlier request (a script, a batch or a selection uses it)",
)
OPTION_REUSE_ALWAYS = Label(
    "Always", "Use the library's copy of an identical earlier request: free, nothing is sent"
)
OPTION_REUSE_NEVER = Label("Never", "Send the request even if an identical one is in the library")
OPTION_WAIT = Label(
    "Wait",
    "Background mode only: wait until the mesh is in the scene before returning. Turn off to send "
    "several jobs at once, then call bpy.ops.kiln.wait_jobs()",
)
OPTION_MAX_CREDITS = Label(
    "Max Credits",
    "Refuse the whole run before anything is sent when its estimate is above this, or when its price "
    "is unknown and it is more than one job (-1: no limit)",
)
OPTION_FIT = Label("Fit", "How a result fits its placeholder")
OPTION_FIT_CONTAIN = Label("Contain", "The largest uniform scale that fits inside the placeholder")
OPTION_FIT_HEIGHT = Label("Height", "A uniform scale to the placeholder's height")
OPTION_FIT_NONE = Label("None", "As generated, only placed")

# ======================================================================= what api/ says
# The engine, the service, the checks and the features: errors (KilnError), job notes, the key's home.

# ------------------------------------------------------------------------------- the key's home

KEY_STORED_IN = "Stored in {where}"
KEY_NOT_SAVED = "{reason} It is used until Blender quits."


# ================================================================= what the Blender side says
# Sidebar panels, preferences, operators' labels, tooltips and reports, the status bar.


# ---- agents (issue 32)
# Kiln's MCP server for agents, as the artist meets it: the preferences' Agents section, its buttons,
# the Sidebar's Agents panel, the mark on an agent's job. What the tools say to agents themselves is
# English for the model to read (``api/agents/words.py``).

OPTION_ALLOW_AGENTS = Label(
    "Allow Agents",
    "Let AI agents on this computer (Claude, Cursor, VS Code and other MCP clients) generate meshes into "
    "this Blender through Kiln. They need the access token (Copy Client Config), spend within the budget "
    "below, and cannot run code or read files outside the allowed folders",
)
OPTION_AGENT_PORT = Label(
    "Port", "The port agents reach Kiln on, on this computer only (127.0.0.1). 0: any free port"
)
OPTION_AGENT_CREDITS = Label(
    "Credit Budget",
    "Credits one agent session may spend. A call that would go over is refused before anything is sent",
)
OPTION_AGENT_JOBS = Label("Job Budget", "Jobs one agent session may start, those of unknown price included")
OPTION_AGENT_FOLDER = Label(
    "Allowed Folder",
    "A folder whose PNG, JPEG and WebP images agents may name by their path (empty: none). Agents can "
    "always send an image itself or its https address",
)
AGENTS_HEADING = "Agents"
AGENTS_FOLDERS_HEADING = "Allowed Folders"
AGENTS_LISTENING = "Agents can reach Kiln at {url}"
AGENTS_FROM_ENVIRONMENT = (
    "{port} and {token} are set: they choose the port and the token, and agents can reach Kiln even "
    "with Allow Agents off"
)
AGENTS_ENVIRONMENT_UNUSABLE = (
    "{port} and {token} are set but cannot be used: set both, the port as a number from 0 to 65535 and "
    "the token as at least {least} letters, digits and - . _ ~ + / ="
)
AGENTS_PORT_TAKEN = (
    "Port {port} is taken by another program, so agents cannot reach Kiln. Choose another port, or 0 "
    "to let Kiln pick a free one"
)
AGENTS_CANNOT_LISTEN = "Agents cannot reach Kiln: port {port} could not be opened ({reason})"
AGENTS_FOLDER_MISSING = "{folder} is not a folder: agents cannot name images in it"
AGENTS_NOT_RUNNING = "Agents cannot reach Kiln yet: turn on Allow Agents in Kiln's preferences"

OP_COPY_AGENT_CONFIG = Label(
    "Copy Client Config",
    "Copy what an MCP client needs to reach Kiln (its address and the access token) to the clipboard. "
    "Paste it only into your agent's settings: it holds the token",
)
AGENT_CLIENT_HTTP = Label(
    "Claude Code, Cursor", "The mcpServers entry of an mcp.json file, over HTTP (most clients take it)"
)
AGENT_CLIENT_VSCODE = Label("VS Code", "The servers entry of VS Code's mcp.json file, over HTTP")
AGENT_CLIENT_BRIDGE = Label(
    "Claude Desktop, Other Local Clients",
    "For clients that start only local servers: the mcp-remote bridge, run by npx (needs Node.js)",
)
AGENT_CLIENT_COMMAND = Label("Claude Code Command", "The claude mcp add command that adds Kiln")
AGENT_CONFIG_COPIED = (
    "Copied the configuration for {client}. It holds the access token: paste it only into your "
    "agent's settings"
)
OP_NEW_AGENT_TOKEN = Label(
    "Make New Token",
    "Make a new access token. Agents using the old one are disconnected and need the new client "
    "configuration",
)
AGENT_TOKEN_MADE = "Made a new access token: give your agents the new client configuration"
AGENT_TOKEN_FROM_ENVIRONMENT = "{token} is set and chooses the token: change it there"
OP_DISCONNECT_AGENTS = Label(
    "Disconnect",
    "End every agent's session now. An agent that connects again starts with a fresh budget",
)
AGENTS_DISCONNECTED = Plural("Disconnected {n} agent", "Disconnected {n} agents")
OP_SERVE_AGENTS = Label(
    "Serve Agents",
    "Background mode (blender -b): serve agents until stopped (Ctrl+C, a termination signal, the time "
    "limit or the stop file)",
)
SERVE_PORT = Label(
    "Port", "The port to listen on. -1: KILN_AGENT_PORT, or the preferences' port; 0: any free port"
)
SERVE_TOKEN = Label(
    "Token", "The access token agents must send. Empty: KILN_AGENT_TOKEN, or Kiln's own token"
)
SERVE_SECONDS = Label("Seconds", "Stop after this many seconds (0: until stopped)")
SERVE_STOP_FILE = Label("Stop File", "Stop as soon as this file exists (empty: none)")
SERVE_IN_A_WINDOW = (
    "In a window, turn on Allow Agents in Kiln's preferences instead: this operator serves agents in "
    "background mode (blender -b)"
)
SERVE_WEAK_TOKEN = (
    "The token must be at least {least} letters, digits and - . _ ~ + / =, so that nobody can guess it"
)
SERVING = "Serving agents at {url} until stopped"
SERVED = "Stopped serving agents"

PANEL_AGENTS = "Agents"
AGENTS_WAITING = "Waiting for agents on port {port}"
AGENTS_CONNECTED = Plural("{n} agent connected", "{n} agents connected")
AGENT_SPENT_CREDITS = Plural("Spent {spent} of {n} credit", "Spent {spent} of {n} credits")
AGENT_STARTED_JOBS = Plural("Started {started} of {n} job", "Started {started} of {n} jobs")
AGENT_UNPRICED_JOBS = Plural("{n} job of unknown price", "{n} jobs of unknown price")
AGENT_ASKED_FOR = "Asked for by an agent ({agent})"
