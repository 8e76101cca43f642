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
    "Your key, made on your service's site. "
    "Kept in your system's keychain or in a private file, never in a .blend file",
)
OPTION_BASE_URL = Label("Service Address", "The address of the 3D generation service, starting with https://")
OPTION_POLL_INTERVAL = Label(
    "Check Every (Seconds)", "Seconds between checks on a running job (the service recommends 2 to 3 seconds)"
)
OPTION_MAX_IN_FLIGHT = Label(
    "Jobs at Once", "How many jobs may run on the service at the same time; more wait their turn"
)
OPTION_TIMEOUT_MINUTES = Label(
    "Give Up After (Minutes)",
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
    "Large Mesh Limit (Triangles)",
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
    "Angle (Degrees)", "Edges between faces that meet at more than this many degrees stay sharp"
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
    "Text Job Price (Credits)",
    "Credits one text job costs you, from your service's dashboard; the service does not publish it. "
    "0 = not set: Generate says price unknown",
)
OPTION_ASK_ABOVE = Label(
    "Ask Above (Credits)",
    "Ask before sending a click estimated above this many credits, or of unknown price when it is "
    "more than one job. 0 = off: never ask about a single click. Scripts in background mode are never asked",
)
OPTION_ASK_UNKNOWN_PRICE = Label(
    "Ask at Unknown Price",
    "Ask once each session before sending a job whose price the service does not publish",
)
OPTION_LIBRARY_DIR = Label(
    "Library Folder",
    "Where every result is also kept as an asset (the Kiln asset library). Empty: a folder of Kiln's own",
)
OPTION_LOG_LEVEL = Label(
    "Log Detail",
    "How much Kiln writes to its log: the terminal Blender was started from (on Windows, Window ▸ Toggle "
    "System Console)",
)
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
OPTION_REUSE = Label("Reuse", "What to do when an identical job is already in the Kiln asset library")
OPTION_REUSE_ASK = Label(
    "Ask",
    "Offer the library's copy of an identical earlier job (a script, a batch or a selection uses it)",
)
OPTION_REUSE_ALWAYS = Label(
    "Always", "Use the library's copy of an identical earlier job: free, nothing is sent"
)
OPTION_REUSE_NEVER = Label("Never", "Send the job even if an identical one is in the library")
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
OPTION_FIT_HEIGHT = Label("Match Height", "A uniform scale to the placeholder's height")
OPTION_FIT_NONE = Label("None", "As generated, only placed")

# ======================================================================= what api/ says
# The engine, the service, the checks and the features: errors (KilnError), job notes, the key's home.

# ---------------------------------------------------------------------- words from elsewhere
# Text Kiln did not write here (an agent tool's English words, a caller not yet converted): said as
# it is, untranslated. Kiln's own sentences never use it.
VERBATIM = "{text}"

# ------------------------------------------------------------------------- what the artist typed
PROMPT_EMPTY = "The prompt is empty. Describe the object you want, for example “a red chair”."
PROMPT_TOO_LONG = (
    "The prompt is {length:,} characters long, and Kiln sends at most {limit:,}. "
    "Shorten it to the object's main features."
)
PROMPT_HIDDEN_CHARACTER = (
    "The prompt contains an invisible control character ({code}). Retype it, or paste it as plain text."
)
SERVICE_ADDRESS_MISSING = "No service address is set. Add it in Kiln's preferences."
SERVICE_ADDRESS_HAS_QUERY = (
    "The service address {url} must not contain “?” or “#”. Correct it in Kiln's preferences."
)
IMAGE_ADDRESS_EMPTY = "The image address is empty."
WEBHOOK_ADDRESS_EMPTY = "The webhook address is empty."
ADDRESS_TOO_LONG = "The address {url} is {length:,} characters long; Kiln accepts at most {limit:,}."
ADDRESS_HAS_BACKSLASH = "The address {url} contains a backslash; web addresses use forward slashes."
ADDRESS_HAS_SPACES = "The address {url} contains spaces or invisible characters."
ADDRESS_NOT_WEB = "The address {url} is not a web address starting with https://."
ADDRESS_HAS_USER = "The address {url} carries a user name or password before “@”, which Kiln does not send."
ADDRESS_BAD_PORT = "The address {url} has an invalid port number."
ADDRESS_NO_HOST = "The address {url} names no server."
ADDRESS_NOT_HTTPS = (
    "The address {url} must start with https:// (plain http is only allowed to this computer)."
)
ADDRESS_MALFORMED = "The address {url} is not a well-formed web address."
ADDRESS_AMBIGUOUS = "The address {url} names its server in a way that can be read two ways."
ADDRESS_LOCAL = "The address {url} points at this computer or its local network."
API_KEY_MISSING = "No API key is set. Add your key in Kiln's preferences."
API_KEY_MALFORMED = (
    "The API key contains spaces or unusual characters. Copy it again from the service's dashboard."
)
RESOLUTION_NOT_WHOLE = "The resolution must be a positive whole number, not {value}."
IMAGE_RESOLUTION_INVALID = "An image job's resolution must be 1024 or 1536, not {value}."
RESOLUTION_NOT_A_CHOICE = "The resolution “{value}” is not one of {choices}."
IMAGE_MODEL_INVALID = "The image model must be given as short plain text (provider, quality)."
ONE_IMAGE_NEEDED = "Give exactly one image: a file, image data or an image address."
IMAGE_PATH_UNUSABLE = "The image file's path cannot be used: it has unusual characters."
IMAGE_DATA_NOT_BYTES = "The image data is not an image file's content."
IMAGE_DATA_EMPTY = "The image data is empty."
IMAGE_DATA_TOO_LARGE = "The image is {size:.1f} MB, and the limit is {limit:.0f} MB."
IMAGE_DATA_NOT_AN_IMAGE = "The image data is not a PNG, JPEG or WebP image."
IMAGE_FILE_MISSING = "The image file {path} does not exist."
IMAGE_FILE_NOT_A_FILE = "The image file {path} is not a file."
IMAGE_FILE_UNREADABLE = "The image file {path} cannot be read."
IMAGE_FILE_TOO_LARGE = "The image file {path} is {size:.1f} MB, and the limit is {limit:.0f} MB."
IMAGE_FILE_NOT_AN_IMAGE = "The image file {path} is not a PNG, JPEG or WebP image."
TASK_ID_UNUSABLE = "Kiln cannot look up “{task}”: it is not a job id the service could have given."

# ------------------------------------------------------------------------------ the service
SERVICE_KEY_REJECTED = (
    "The service did not accept your API key. Check the key in Kiln's preferences, "
    "or create a new API key in the service's dashboard."
)
SERVICE_KEY_FORBIDDEN = (
    "The service refused your API key for this. Check in the service's dashboard that the key may "
    "make 3D models, or create a new API key there."
)
SERVICE_OUT_OF_CREDITS = (
    "Your account does not have enough credits for this. Top up credits in the service's dashboard, "
    "or use resolution 1024, which costs less."
)
#: The same, on a service without resolutions (``api.services.advice`` picks the one that fits).
SERVICE_OUT_OF_CREDITS_CHEAPER_TIER = (
    "Your account does not have enough credits for this. Top up credits in the service's dashboard, "
    "or pick a cheaper model."
)
SERVICE_OUT_OF_CREDITS_TOP_UP = (
    "Your account does not have enough credits for this. Top up credits in the service's dashboard."
)
SERVICE_BUSY = (
    "The service is receiving too many requests. Wait a minute and try again, or run fewer jobs at once."
)
SERVICE_BUSY_WAIT = Plural(
    "The service is receiving too many requests and asked Kiln to wait {n:,} second. "
    "Try again then, or run fewer jobs at once.",
    "The service is receiving too many requests and asked Kiln to wait {n:,} seconds. "
    "Try again then, or run fewer jobs at once.",
)
SERVICE_REFUSED_REQUEST = (
    "The service refused this job. Check the prompt, the image and the options, then try again."
)
SERVICE_ADDRESS_WRONG = "The service address does not lead to the 3D service. Check it in Kiln's preferences."
#: A documented path of a service with a known address answered 404 or 410: the service moved on.
SERVICE_MOVED = (
    "The service no longer answers this version of Kiln. "
    "Update Kiln in Edit ▸ Preferences ▸ Get Extensions, then press Resume."
)
SERVICE_NOT_THE_SERVICE = (
    "{host} answered, but not like the 3D service. Check the service address in Kiln's preferences."
)
SERVICE_FORGOT_JOB = (
    "The service no longer knows this job; it may have expired. "
    "Press Retry to make it again (a retry costs credits)."
)
SERVICE_DOWNLOAD_LINK_REFUSED = (
    "The service refused the download link; it may have expired. Press Resume to get a fresh one."
)
SERVICE_PROBLEM = (
    "The 3D service has a problem right now. This is usually temporary: try again in a few minutes."
)
SERVICE_ANSWER_UNUSABLE = (
    "The 3D service sent an answer Kiln could not use. This is usually temporary: try again in a few minutes."
)
SERVICE_DONE_WITHOUT_MESH = (
    "The service said the mesh was done but sent no link to download it. "
    "Press Resume to ask again, or Retry to make it again (a retry costs credits)."
)
SERVICE_NOT_SET_UP = (
    "The service is not set up yet. Check the key and the service address in Kiln's preferences."
)
SERVICE_SENT_BAD_ADDRESS = (
    "The service sent a web address Kiln will not open, so nothing was downloaded from it. "
    "If this keeps happening, tell the service's provider."
)
TASK_FAILED = (
    "The service could not make a mesh from this prompt or image. "
    "Try other words or another image, or try again later."
)
TASK_REFUSED = (
    "The service could not make a mesh from this prompt or image. "
    "Try other words or another image, or try again later. (The service said: “{reason}”)"
)
OUTCOME_UNKNOWN = (
    "Kiln cannot tell whether the service received this job, so it did not send it again, to "
    "avoid paying twice. Check the service's dashboard before you press Retry."
)
CONNECTION_ASKING = "Asking the service…"
CONNECTION_OK = "Connected to {host}: the service answered and accepted your API key."
CONNECTION_UNEXPECTED = "Kiln hit an unexpected problem while asking the service. Kiln's log has the details."

# ------------------------------------------------------------------------------ the connection
NETWORK_NAME_NOT_FOUND = (
    "Kiln could not find {host}. Check your internet connection and the service address in "
    "Kiln's preferences."
)
NETWORK_REFUSED = (
    "{host} refused the connection. Is the service running? Check the service address in Kiln's preferences."
)
NETWORK_NO_CONNECTION = (
    "Kiln could not connect to {host}. Check your internet connection and the service address in "
    "Kiln's preferences."
)
NETWORK_TIMED_OUT = "{host} did not answer in time. Check your internet connection, then try again."
NETWORK_CUT_OFF = "The connection to {host} was cut off. Check your internet connection, then try again."
NETWORK_TOO_SLOW = (
    "The connection to {host} was too slow, so Kiln stopped waiting. "
    "Check your internet connection, then try again."
)
CERTIFICATE_UNTRUSTED_WINDOWS = (
    "The secure connection to {host} failed: its certificate could not be verified. If a company proxy "
    "or an antivirus inspects secure connections, its root certificate must be added to Windows' trusted "
    "root certificates: ask your IT team, and show them Copy Details. Kiln never turns this check off."
)
CERTIFICATE_UNTRUSTED_MAC = (
    "The secure connection to {host} failed: its certificate could not be verified. If a company proxy "
    "or an antivirus inspects secure connections, add its root certificate to the System keychain in "
    "Keychain Access and set it to Always Trust (your IT team may do this for you). Kiln never turns this "
    "check off."
)
CERTIFICATE_UNTRUSTED_LINUX = (
    "The secure connection to {host} failed: its certificate could not be verified. If a company proxy "
    "or an antivirus inspects secure connections, its root certificate must be added to the system's "
    "trusted certificates: ask your IT team, and show them Copy Details. Kiln never turns this check off."
)
REQUEST_CANCELLED = "Kiln stopped asking the service."
CONNECTION_CLOSED = "Kiln's connection to the service was closed."

# ------------------------------------------------------------------------------ the mesh file
MESH_DAMAGED = (
    "The downloaded mesh file is damaged. Press Resume to download it again; "
    "if this keeps happening, the service is sending broken files."
)
MESH_TOO_LARGE = (
    "The mesh file is larger than the {limit:,} MB Kiln accepts, so the download was stopped. "
    "Try resolution 1024 for a smaller mesh."
)
MESH_TOO_LARGE_FACE_LIMIT = (
    "The mesh file is larger than the {limit:,} MB Kiln accepts, so the download was stopped. "
    "Try a lower Face Limit for a smaller mesh."
)
MESH_TOO_LARGE_PLAIN = (
    "The mesh file is larger than the {limit:,} MB Kiln accepts, so the download was stopped."
)
MESH_NEEDS_KTX2_TEXTURES = (
    "This mesh has KTX2 textures, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_AVIF_TEXTURES = (
    "This mesh has AVIF textures, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_MESHOPT = (
    "This mesh is compressed with meshopt, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_DISPERSION = (
    "This mesh has dispersion materials, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_IRIDESCENCE = (
    "This mesh has iridescent materials, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_DIFFUSE_TRANSMISSION = (
    "This mesh has diffuse transmission materials, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_GAUSSIAN_SPLATS = (
    "This mesh is made of Gaussian splats, which Blender's glTF importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_NEEDS_EXTENSION = (
    "This mesh needs a glTF feature that Blender's importer cannot read. "
    "Open the file in another program: Open Cache Folder shows where it is."
)
MESH_DOWNLOAD_FAILED = (
    "Kiln could not download the finished mesh. The service keeps it for a while: press Resume to try again."
)
PREVIEW_DAMAGED = "The preview picture is damaged. The mesh itself may still be fine."

# ------------------------------------------------------------------ opening a mesh (the helper)
MESH_CRASHED_IMPORTER = (
    "Blender's glTF importer crashed on this mesh in a separate background Blender, so your scene is "
    "unharmed. The file may be damaged: press Retry to make it again."
)
MESH_OUT_OF_MEMORY = (
    "Opening this mesh needed more than {gigabytes:.1f} GB of memory, the limit Kiln sets, so Kiln "
    "stopped. Your scene is unharmed. Try resolution 1024 for a smaller mesh."
)
MESH_OUT_OF_MEMORY_FACE_LIMIT = (
    "Opening this mesh needed more than {gigabytes:.1f} GB of memory, the limit Kiln sets, so Kiln "
    "stopped. Your scene is unharmed. Try a lower Face Limit for a smaller mesh."
)
MESH_OUT_OF_MEMORY_PLAIN = (
    "Opening this mesh needed more than {gigabytes:.1f} GB of memory, the limit Kiln sets, so Kiln "
    "stopped. Your scene is unharmed."
)
MESH_OPEN_TIMED_OUT = (
    "Opening this mesh took longer than {seconds:,.0f} s, so Kiln stopped. Your scene is unharmed. "
    "The file may be damaged: press Retry to make it again."
)
MESH_UNREADABLE = (
    "Blender could not open the downloaded mesh: the file is damaged. Press Retry to make it again."
)
MESHES_OPEN_HERE = (
    "Kiln opens meshes in this Blender, because it could not start a separate background Blender for "
    "them. A damaged mesh could take this Blender down with it."
)
MESHES_OPEN_HERE_NO_PROGRAM = (
    "Kiln opens meshes in this Blender: Blender runs here as a Python module, with no program to start "
    "a separate one. A damaged mesh could take this Blender down with it."
)
OPENING_CANCELLED = "Opening the mesh was cancelled."

# ------------------------------------------------------------------------------ a job's notes
NOTE_SENDING = "Sending"
NOTE_WAITING_FOR_TURN = "Waiting for another job to finish (Jobs at Once)"
NOTE_WAITING_OFFLINE = "Waiting: Blender's online access is off"
NOTE_DOWNLOADING = "Downloading {percent}%"
NOTE_PREPARING = "Preparing the import"
NOTE_TRYING_AGAIN = "{problem} Trying again in {seconds} s."
NOTE_DOWNLOAD_TRYING_AGAIN = "{problem} Trying the download again in {seconds} s."
NOTE_KEPT_AS_MADE = "Imported as the service made it: its fix-ups or export failed. Copy Details says why."
NOTE_STOPPED_WAITING = (
    "Kiln stopped waiting for this job. The service may still finish it (and charge for it): "
    "Resume brings its mesh in at no extra cost."
)

# ------------------------------------------------------------------------------ a job in the list
# The few words inside an active job's progress bar (its note, if longer, goes below it whole) and a
# finished job's state, as the Jobs panel shows them (``ui_text``).
BAR_WAITING = "Waiting"
BAR_WAITING_SECONDS = "Waiting {seconds} s"
BAR_QUEUED = "Queued"
BAR_DOWNLOADING = "Downloading"
BAR_RUNNING = "Making the mesh"
BAR_PERCENT = "{percent}%"
BAR_PERCENT_LEFT = "{percent}% · {left}"
LEFT_SECONDS = "about {seconds} s left"
LEFT_MINUTES = "about {minutes} min left"
STATE_READY = "Ready to import"
STATE_FAILED = "Did not work"
STATE_CANCELLED = "Stopped"
STATE_OUTCOME_UNKNOWN = "Unclear: check your dashboard"
STATE_TIMED_OUT = "Gave up waiting"
IMPORTED_HERE = "In the scene"
IMPORTED_OTHER_SESSION = "Imported in another session"
IMPORTED_SINCE_REMOVED = "Imported into this file, since removed"
IMPORTED_UNSAVED = "Imported into a file that was not saved"
IMPORTED_INTO = "Imported into {name}"
TRIANGLE_COUNT = Plural("{n:,} triangle", "{n:,} triangles")
KEY_LOOKS_ODD = (
    "This does not look like a live API key (those have _live_ after the service's letters). "
    "Check that you copied the whole key; Kiln will still try it"
)

# ------------------------------------------------------------------------------ a job's end
JOB_TIMED_OUT = (
    "Kiln stopped waiting for this job after the time limit (Give Up After, in Kiln's preferences). "
    "The service may still finish it: press Resume to check again."
)
JOB_OUTCOME_UNKNOWN_AFTER_STOP = (
    "The Blender that was sending this job stopped before the service answered, so Kiln cannot tell "
    "whether the service received it. Check the service's dashboard before you press Retry "
    "(a retry costs credits)."
)
JOB_UNEXPECTED_PROBLEM = (
    "Kiln hit an unexpected problem with this job and kept it as it is. Check the service's dashboard "
    "before you press Retry; Copy Details has what support needs."
)
JOB_RUNS_ELSEWHERE = "This job runs in {blender}."
JOB_RUNS_ELSEWHERE_CANCEL_THERE = "This job runs in {blender}: stop it there first."
JOB_RUNS_ELSEWHERE_DO_THERE = "This job runs in {blender}: do this there."
JOB_OWNER_STOPPED = "The Blender that ran this job has stopped; Retry or Resume here takes it over."
ANOTHER_BLENDER = "another Blender"
ENGINE_NOT_RUNNING = (
    "Kiln is not running, so nothing would move these jobs on. Disable and enable Kiln (or restart "
    "Blender); the jobs are kept."
)

# ------------------------------------------------------------------------ the job list on disk
JOB_LIST_DISK_FULL = (
    "Kiln could not record its jobs because the disk is full. Nothing was sent. Free some space, then "
    "try again."
)
JOB_LIST_READ_ONLY = (
    "Kiln could not record its jobs because the disk or its folder is read-only. Nothing was sent."
)
JOB_LIST_NO_PERMISSION = (
    "Kiln could not record its jobs because it may not write to its folder. Nothing was sent. "
    "Fix the folder's permissions, then try again."
)
JOB_LIST_NOT_A_FOLDER = (
    "Kiln could not record its jobs because a file named “{name}” is where its folder should be. "
    "Nothing was sent. Press Show “{name}”, move that file away, then try again."
)
JOB_LIST_FAILED = (
    "Kiln could not record its jobs. Nothing was sent. Check free disk space and that Kiln's folder can "
    "be written, then try again."
)
JOB_LIST_NEWER = (
    "Kiln's job list was written by a newer version of Kiln. This Kiln shows what it can read of it, "
    "changes nothing and sends nothing new. Update Kiln to work with it."
)
JOB_LIST_NEWER_UNREADABLE = (
    "Kiln's job list was written by a newer version of Kiln, and this Kiln cannot read its jobs. It "
    "changes nothing and sends nothing new. Update Kiln to work with it."
)
JOB_LIST_READ_ONLY_VERSION = (
    "Kiln's job list was written by a newer version of Kiln, so this Kiln sends nothing new."
)
JOB_LIST_CLOSED = "Kiln's job list is not open. Disable and enable Kiln, or restart Blender."
JOB_LIST_EMPTIED = "Kiln's job list was emptied by something outside Kiln."
JOB_LIST_DELETED = "Kiln's job list was deleted by something outside Kiln; only its latest changes were left."
JOB_LIST_CUT_SHORT = "Kiln's job list was cut short by something outside Kiln."
JOB_LIST_OVERWRITTEN = "Kiln's job list was overwritten by something outside Kiln."
JOB_LIST_LOG_DAMAGED = "The latest changes to Kiln's job list were damaged by something outside Kiln."
JOB_LIST_UNREADABLE = "Kiln's job list was damaged and could not be read whole."
JOB_LIST_FOREIGN = "Kiln's job list holds something other than Kiln's jobs."
OLD_JOB_LIST_DAMAGED = "Kiln's job list from an older version was damaged."
JOB_LIST_KEPT = Plural(
    "{happened} Kiln kept a copy of it in its user folder and brought back {n:,} job from it.",
    "{happened} Kiln kept a copy of it in its user folder and brought back {n:,} jobs from it.",
)
JOB_LIST_KEPT_NOTHING = (
    "{happened} Kiln kept a copy of it in its user folder, but could bring back no job from it."
)
JOB_LIST_IN_USE = (
    "{happened} Another Blender is still using it, so Kiln leaves it as it is and nothing in it is lost. "
    "Close the other Blender, then use Kiln here again."
)

# ---------------------------------------------------------------------------- files on disk
FILES_DISK_FULL = "Kiln could not save a file because the disk is full. Free some space, then try again."
FILES_READ_ONLY = "Kiln could not save a file because the disk or its folder is read-only."
FILES_NO_PERMISSION = (
    "Kiln could not save a file because it may not write to its folder. "
    "Fix the folder's permissions, then try again."
)
FILES_NOT_A_FOLDER = (
    "Kiln could not save a file because a file named “{name}” is where a folder should be. "
    "Press Show “{name}”, move that file away, then try again."
)
SHOW_FILE = "Show “{name}”"
#: The button under a damaged job list's sentence: it opens the folder where Kiln kept the copy.
SHOW_COPY = "Show the Copy"
FILES_FOLDER_MISSING = (
    "Kiln could not save a file because its folder is not there. If it is on a network drive, "
    "connect the drive, then try again."
)
FILES_LOCKED = (
    "Kiln could not save a file because another program (an antivirus, a backup or sync tool, another "
    "Blender) keeps it open. Try again in a moment, or exclude Kiln's folder from that program."
)
FILES_FAILED = "Kiln could not save a file. Check free disk space and that the folder can be written."

# ------------------------------------------------------------------------------ the API key's home
KEY_STORED_IN = "Stored in {where}"
KEY_NOT_SAVED = "{reason} It is used until Blender quits."
KEY_HOME_PRIVATE_FILE = "a private file in Kiln's user folder"
KEY_HOME_WINDOWS = "Kiln's user folder, encrypted for your Windows account"
KEY_HOME_KEYCHAIN = "the macOS Keychain"
KEY_HOME_KEYRING = "your desktop's keyring"
SECRET_API_KEY = "API key"
SECRET_AGENT_TOKEN = "agents' access token"
KEY_FILE_NOT_WRITTEN = "The {what} was not saved: Kiln's user folder cannot be written."
KEY_FILE_NOT_REMOVED = "The old {what} could not be removed from Kiln's user folder."
KEY_FILE_LOCKED = (
    "The {what} was not saved because another program (an antivirus, a backup or sync tool, another "
    "Blender) keeps its file open. Try again in a moment."
)
KEY_NOT_ENCRYPTED = "Windows could not encrypt the {what}, so it was not saved."
KEYCHAIN_REFUSED_KEY = "The macOS Keychain did not take the {what}."
KEYCHAIN_KEPT_KEY = "The macOS Keychain did not remove the {what}."
KEYRING_NO_ANSWER = "Your desktop's keyring did not answer, so the {what} was not saved there."
KEYRING_REFUSED_KEY = "Your desktop's keyring did not take the {what}."

# ------------------------------------------------------------------------------ credits
CREDITS_COUNT = Plural("{n:,} credit", "{n:,} credits")
#: A price or balance that is not a whole number of credits, as it is (Rodin prices in halves).
CREDITS_FRACTION = "{amount} credits"
PRICE_UNKNOWN = "price unknown"
UNPRICED_JOBS = Plural("{n:,} text job of unknown price", "{n:,} text jobs of unknown price")
CREDITS_AND_UNPRICED = "{credits} and {unpriced}"
JOBS_COUNT = Plural("{n:,} job", "{n:,} jobs")
SPENT_THIS_SESSION = "This session: {jobs}, {credits}"
SPENT_THIS_SESSION_UNPRICED = "This session: {jobs}, {credits}, and {unpriced}"
SPENT_NOTHING_THIS_SESSION = "This session: nothing sent yet"
SPENT_THIS_MONTH = "This month on this computer: {jobs}, {credits}"
SPENT_THIS_MONTH_UNPRICED = "This month on this computer: {jobs}, {credits}, and {unpriced}"

# ------------------------------------------------------------------------------ prompt files
PROMPT_FILE_NOT_CHOSEN = "Choose a prompt file first: a .txt file (one prompt a line) or a .csv file."
PROMPT_FILE_WRONG_KIND = "{name} is not a prompt file: use a .txt file (one prompt a line) or a .csv file."
PROMPT_FILE_MISSING = "The prompt file {path} does not exist."
PROMPT_FILE_UNREADABLE = "The prompt file {path} cannot be read."
PROMPT_FILE_GUESSED_ENCODING = (
    "{name} is not saved as UTF-8, so Kiln read it as {encoding} (what Excel's plain CSV uses on Windows). "
    "If a prompt looks wrong, save the file as “CSV UTF-8” or “UTF-8” and run it again."
)
CSV_NO_PROMPT_COLUMN = (
    "The CSV header (line {line}) needs a “prompt” or an “image” column; it has: {columns}."
)
CSV_EMPTY = "The CSV file is empty: it needs a header line with a “prompt” or an “image” column."
CSV_HEADER_EMPTY = "nothing"
LINE_SKIPPED = "Line {line} was skipped: {problem}"
LINE_HAS_CONTROL_CHARACTERS = "It contains control characters. Is the file a text file?"
LINE_HAS_PROMPT_AND_IMAGE = "It has both a prompt and an image; give one of them."
LINE_HAS_NOTHING = "It has neither a prompt nor an image."
LINE_SERVICE_UNKNOWN = (
    "It names the service “{service}”, which this Kiln does not know (it knows {services})."
)
BATCH_IMPORTED = Plural("{imported:,} of {n:,} job imported", "{imported:,} of {n:,} jobs imported")

# ------------------------------------------------------------------------------ game-ready output
ENGINE_UNKNOWN = "“{engine}” is not a game engine Kiln knows (choose one of {engines})."
COLLISION_UNKNOWN = "“{collision}” is not a collision Kiln makes (choose NONE or HULL)."
LOOSE_SHARE_OUT_OF_RANGE = "The loose-part share must be at least 0 and below 1 (for example 0.01 for 1%)."
TRIANGLE_BUDGET_NEGATIVE = "The triangle budget cannot be negative (0 means no budget)."
TRIANGLE_BUDGET_NOT_WHOLE = "The triangle budget “{value}” is not a whole number."
EXPORT_TARGET_UNKNOWN = "The export “{value}” is not one of {targets}."
LOD_RATIO_NOT_A_NUMBER = "The LOD ratio “{value}” is not a number (write for example 0.5, 0.25)."
LOD_RATIO_OUT_OF_RANGE = "The LOD ratio “{value}” must be between 0 and 1 (a share of LOD0's triangles)."
LOD_RATIOS_NOT_FALLING = "LOD ratios must fall: “{value}” is not below {previous:g}."
TOO_MANY_LODS = Plural("Give at most {n:,} LOD ratio.", "Give at most {n:,} LOD ratios.")
VERDICT_READY = "clean"
VERDICT_CHECK = "check"
VERDICT_PROBLEMS = "problems"
VERDICT_FAILED = "failed"
FIXED_MERGED = Plural("Fix-ups merged {n:,} vertex.", "Fix-ups merged {n:,} vertices.")
FIXED_LOOSE = Plural("Fix-ups removed {n:,} loose part.", "Fix-ups removed {n:,} loose parts.")
FIXED_FACES = Plural(
    "Fix-ups turned {n:,} triangle to face out.", "Fix-ups turned {n:,} triangles to face out."
)
FIXED_TRIANGLES = "Fix-ups reduced {before:,} triangles to {after:,}."
QUALITY_TRIANGLES = Plural("{n:,} triangle", "{n:,} triangles")
QUALITY_PARTS = Plural("{n:,} part", "{n:,} parts")
QUALITY_LINE = "{verdict} · {triangles} · {parts}"
QUALITY_NO_TRIANGLES = "It has no triangles."
QUALITY_INVERTED = Plural(
    "{n:,} triangle faces inwards (the other way from its neighbours).",
    "{n:,} triangles face inwards (the other way from their neighbours).",
)
QUALITY_INSIDE_OUT = Plural(
    "{n:,} triangle of a closed part faces inwards (the part is inside out).",
    "{n:,} triangles of closed parts face inwards (inside out).",
)
QUALITY_OPEN = Plural(
    "The surface is open: {n:,} edge borders a hole.", "The surface is open: {n:,} edges border a hole."
)
QUALITY_ODD_EDGES = Plural(
    "{n:,} edge is shared by more than two triangles.", "{n:,} edges are shared by more than two triangles."
)
QUALITY_FRAGMENTS = Plural(
    "{n:,} loose fragment (under {share:.0%} of the triangles).",
    "{n:,} loose fragments (each under {share:.0%} of the triangles).",
)
QUALITY_ZERO_AREA = Plural("{n:,} triangle has no area.", "{n:,} triangles have no area.")
QUALITY_NO_UVS = "It has no UV map."
QUALITY_UV_OVERLAP = "{share:.0%} of the UV area is used twice."
QUALITY_UV_OVERLAP_ABOUT = "About {share:.0%} of the UV area is used twice."
QUALITY_NOT_MEASURED_FAILED = "{what} not measured: something in this mesh stopped the count."
QUALITY_NOT_MEASURED_OUT_OF_TIME = "{what} not measured: the report ran out of time on this mesh."
MEASURE_SIZE = "Size"
MEASURE_SHAPE = "Parts, holes and inward faces"
MEASURE_PARTS = "Loose parts"
MEASURE_EDGES = "Holes and shared edges"
MEASURE_ZERO_AREA = "Triangles without area"
MEASURE_WINDING = "Inward-facing triangles"
MEASURE_INSIDE_OUT = "Inside-out parts"
MEASURE_UV_OVERLAP = "UV overlap"
UV_REPEATS = "UV overlap not measured: the UVs repeat the texture many times."
UV_NOT_NUMBERS = "UV overlap not measured: the UV coordinates are not numbers."
UV_SAMPLED = (
    "UV overlap estimated from a sample of the texture's rows: "
    "the UV layout has too many long, thin triangles to check in full."
)
UV_WITHOUT_NUMBERS = Plural(
    "UV overlap measured without {n:,} triangle whose UV coordinates are not numbers.",
    "UV overlap measured without {n:,} triangles whose UV coordinates are not numbers.",
)
REVIEW_SHEET = "Review sheet"
REVIEW_FAILED = "Failed"
REVIEW_EVERY_LINE = "Every line"
REVIEW_NAME = "Name"
REVIEW_VERDICT = "Verdict"
REVIEW_TRIANGLES = "Triangles"
REVIEW_TASK = "Job ID"
REVIEW_NOTES = "Notes"

# ------------------------------------------------------------------------------ the Kiln library
LIBRARY_INDEX_NEWER = (
    "Parts of the Kiln library were written by a newer version of Kiln. This Kiln leaves them as they "
    "are and does not offer those results for reuse."
)
LIBRARY_INDEX_DAMAGED = (
    "Part of the Kiln library's index is damaged. It is left as it is; the results it listed are not "
    "offered for reuse (their files stay)."
)
LIBRARY_INDEX_UNREADABLE = (
    "Kiln could not read the Kiln library's index, so it offers no earlier result for reuse until it can."
)


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

# ---------------------------------------------------------------------------- the status bar

#: Every sentence Kiln puts in the status bar or an operator's report: who is speaking, then what.
REPORT = "Kiln: {sentence}"

# ------------------------------------------------------------------- connecting (the first step)

SETUP_HEADING = "Before Kiln can make a mesh:"
SETUP_ADD_KEY = "Add your API key"
SETUP_ADD_ADDRESS = "Add the service address"
SETUP_GO_ONLINE = "Let Blender go online"
SETUP_OPEN_PREFERENCES = Label(
    "Open Kiln Preferences", "Kiln's preferences, where the key and the service address go"
)
SETUP_NO_KEY = "No API key is set: add yours in Kiln's preferences (Edit ▸ Preferences ▸ Add-ons ▸ Kiln)."
SETUP_NO_ADDRESS = (
    "No service address is set: add it in Kiln's preferences (Edit ▸ Preferences ▸ Add-ons ▸ Kiln)."
)
SETUP_OFFLINE = (
    "Online access is off, so Kiln cannot reach the service: turn on Allow Online Access "
    "(Edit ▸ Preferences ▸ System ▸ Network)."
)
SETUP_OFFLINE_MODE = (
    "Online access is off because Blender was started with --offline-mode: start it without that option "
    "to reach the service."
)

# ------------------------------------------------------------------------- launching a job

GENERATING = "Generating “{name}”"
IMPORTED_ONE = "“{name}” is in the scene."
JOB_DID_NOT_FINISH = "The job did not finish."

# ---------------------------------------------------------------------- the generate operators

OP_GENERATE_FROM_TEXT = Label(
    "Generate from Text", "Make a 3D mesh from a text prompt; it appears in the scene when it is done"
)
OP_GENERATE_FROM_IMAGE = Label(
    "Generate from Image", "Make a 3D mesh from one concept image (a file, a Blender image or a web address)"
)
ARG_PROMPT = Label("Prompt", "What to make, in plain words, for example “a weathered oak chair”")
ARG_PROVIDER = Label(
    "Drawing Model",
    "Which model draws the reference views the mesh is made from; empty lets the service choose",
)
ARG_QUALITY = Label(
    "Drawing Detail", "How carefully the reference views are drawn; empty lets the service choose"
)
ARG_IMAGE_FILE = Label("Image File", "A PNG, JPEG or WebP file to send")
ARG_BLENDER_IMAGE = Label("Blender Image", "Any image in this .blend file, Render Result included")
ARG_IMAGE_URL = Label("Image Address", "A public https:// address of the image; the service fetches it")
ARG_WEBHOOK_URL = Label(
    "Notify Address",
    "An https:// address your service calls when the mesh is done (optional, for studio tools)",
)
CHOOSE_ONE_IMAGE = "Choose exactly one image: a file, a Blender image or a web address."
CONFIRM_GENERATE = Label("Generate", "Send it")
LIBRARY_OFFER_REPORT = (
    "“{name}” was already generated on {date}: in the Kiln panel, press Use It (free) or Generate Anyway."
)

# -------------------------------------------------------------------------------- blockout

BLOCKOUT_NOT_A_SHAPE = "“{name}” is a camera, a light or the like: it cannot be a placeholder."
BLOCKOUT_DEFAULT_NAME = (
    "“{name}” still has the name Blender gave it: mark it as a placeholder (which names it) to use it."
)
BLOCKOUT_NOT_MARKED = "“{name}” is not marked as a placeholder: select it and press Mark as Placeholder."
BLOCKOUT_SKIPPED = "“{name}” was skipped: {reason}"

# ------------------------------------------------------------------------- what things cost

SPEND_TITLE = "Spend Credits?"
SPEND_QUESTION = Plural("Send {n} job? It costs {cost}.", "Send {n} jobs? Together they cost {cost}.")
SPEND_QUESTION_UNPRICED = Plural(
    "Send {n} job? Its price is unknown: set the Text Job Price in Kiln's preferences to see it.",
    "Send {n} jobs? Their price is unknown: set the Text Job Price in Kiln's preferences to see it.",
)
#: A run of unknown price where no setting of Kiln's can give the price (the service publishes none).
SPEND_QUESTION_PRICE_UNKNOWN = Plural(
    "Send {n} job? Its price is unknown.", "Send {n} jobs? Their price is unknown."
)
UNKNOWN_PRICE_TITLE = "Send at an Unknown Price?"
UNKNOWN_PRICE_WHY = "{service} does not publish what this job costs, so Kiln cannot say its price."
UNKNOWN_PRICE_SET_IT = (
    "Set your Text Job Price in Kiln's preferences (Credits), from your service's dashboard: "
    "Generate then shows it and Kiln counts it."
)
UNKNOWN_PRICE_SEND = "Send it?"
DONT_ASK_AGAIN = Label(
    "Don't Ask Again",
    "From now on, send a job of unknown price without this question "
    "(Kiln's preferences: Ask at Unknown Price)",
)
RETRY_TITLE = "Retry: Pay Again?"
RETRY_QUESTION = "Send “{name}” again as a new job? It costs {cost}."
RETRY_QUESTION_UNPRICED = "Send “{name}” again as a new job? Its price is unknown."
RETRY_KEEPS_RESULT = "What the earlier job put in your scene stays."
FAILED_JOBS_REFUNDED = Plural(
    "{n:,} failed job cost nothing: the service gives its credits back",
    "{n:,} failed jobs cost nothing: the service gives their credits back",
)
FAILED_JOBS_COUNTED = Plural(
    "{n:,} failed job is counted at its price: the service does not say it gives credits back",
    "{n:,} failed jobs are counted at their price: the service does not say it gives credits back",
)
ASK_ABOVE_OFF = "0 = off: a single click is sent without asking (a batch and a blockout always ask)."
ASK_ABOVE_ON = Plural(
    "Kiln asks before a click that costs more than {n:,} credit.",
    "Kiln asks before a click that costs more than {n:,} credits.",
)
OVER_LIMIT = Plural(
    "This would cost {cost}, more than the {n:,} credit allowed (Max Credits), so nothing was sent.",
    "This would cost {cost}, more than the {n:,} credits allowed (Max Credits), so nothing was sent.",
)
OVER_LIMIT_UNKNOWN_PRICE = Plural(
    "The price of {n} text job is unknown, so Kiln cannot tell whether the run stays within the {limit:,} "
    "credits allowed (Max Credits): nothing was sent. Set the Text Job Price in Kiln's preferences.",
    "The price of {n} text jobs is unknown, so Kiln cannot tell whether the run stays within the {limit:,} "
    "credits allowed (Max Credits): nothing was sent. Set the Text Job Price in Kiln's preferences.",
)
OP_MARK_PLACEHOLDER = Label(
    "Mark as Placeholder",
    "Mark the selected objects as placeholders: say what each should become, and Generate from Selection "
    "replaces them with it",
)
ARG_PLACEHOLDER_PROMPT = Label("Becomes", "What the placeholder should become, in plain words")
MARK_SELECT_FIRST = "Select the objects to mark first."
MARK_CONFIRM = "Mark"
MARK_SAY_WHAT = "Say what the placeholder should become, for example “a wooden barrel”."
MARK_NOTHING_MARKABLE = "Cameras and lights cannot be placeholders: select the shapes to replace."
MARKED = Plural("1 placeholder asks for “{prompt}”.", "{n} placeholders ask for “{prompt}”.")
OP_GENERATE_FROM_SELECTION = Label(
    "Generate from Selection",
    "Make a mesh for every selected placeholder and put it in the placeholder's place",
)
BLOCKOUT_NEW_VARIANTS = Plural(
    "1 of them already has a result: it gets a new variant, sent again.",
    "{n} of them already have a result: they get new variants, sent again.",
)
BLOCKOUT_NOTHING_TO_SEND = "No selected object is a placeholder, so nothing was sent."
BLOCKOUT_ALL_FROM_LIBRARY = Plural(
    "1 placeholder was filled from the Kiln library (free).",
    "{n} placeholders were filled from the Kiln library (free).",
)
BLOCKOUT_GENERATING = Plural("Generating 1 placeholder's mesh.", "Generating meshes for {n} placeholders.")
JOB_NOT_IN_SCENE = "“{name}” is not in the scene: {reason}"
BLOCKOUT_NONE_REPLACED = "No placeholder was replaced."
BLOCKOUT_REPLACED = Plural("Replaced {n} of {total} placeholder.", "Replaced {n} of {total} placeholders.")
OP_VARIANT_NEXT = Label("Next Variant", "Show the next variant of the active placeholder, hiding the others")
OP_VARIANT_PREVIOUS = Label(
    "Previous Variant", "Show the previous variant of the active placeholder, hiding the others"
)
OP_VARIANT_KEEP = Label("Keep Variant", "Keep the variant shown and delete the others")
VARIANT_NOT_A_PLACEHOLDER = (
    "Select a placeholder that has results (or one of its results) to see its variants."
)
VARIANT_NONE = "“{name}” has no variant yet."
VARIANT_SHOWN = "“{name}” shows variant {n}."
VARIANT_NONE_SHOWN = "No variant of “{name}” is shown, so none was deleted."
VARIANT_KEPT = Plural(
    "Kept variant {shown} of “{name}” and deleted the other one.",
    "Kept variant {shown} of “{name}” and deleted the {n} others.",
)
VARIANT_ONLY_ONE = "“{name}” has only the variant shown: nothing was deleted."

# ------------------------------------------------------------------------ the Generate panel

PANEL_GENERATE = "Generate"
PANEL_ADVANCED = "Advanced"
PANEL_BLOCKOUT = "Blockout"
PROMPT_PLACEHOLDER = "Describe it: a red chair…"
PROMPT_FROM_TEXT = Plural(
    "Sends the {n} character of the Text block “{name}” (Advanced).",
    "Sends all {n:,} characters of the Text block “{name}” (Advanced).",
)
PROMPT_FROM_TEXT_BLOCK = "A long prompt from a Text block:"
IMAGE_URL_FETCHED = "Kiln fetches this picture to check it, then sends the picture it checked."
CHOOSE_IMAGE_FILE = "Choose an image file (PNG, JPEG or WebP)."
CHOOSE_BLENDER_IMAGE = "Choose an image from this file (Render Result included)."
GENERATE_WITH_COST = "Generate · {cost}"
TEXT_PRICE_UNKNOWN = "The service does not publish the price of a text job."
SET_PRICE = "Set Text Job Price"
SERVICE_VALUES_UNPUBLISHED = "Leave both empty unless your service's documentation names a value."
BATCH_FROM_FILE = "Batch from File…"
BLOCKOUT_HINT = (
    "Select shapes that stand in for meshes to come, press Mark as Placeholder and say what each should "
    "become; Generate from Selection then replaces them."
)
BLOCKOUT_JOBS = Plural("1 placeholder: {cost}", "{n} placeholders: {cost}")
BLOCKOUT_NOT_PLACEHOLDERS = Plural(
    "{n} selected object is not a placeholder and is left out.",
    "{n} selected objects are not placeholders and are left out.",
)
VARIANT_POSITION = "“{name}”: variant {shown} of {n}"
VARIANT_HIDDEN = Plural("“{name}”: {n} variant, none shown", "“{name}”: {n} variants, none shown")
KEEP = "Keep"

# --------------------------------------------------------------------------- the Jobs panel

PANEL_JOBS = "Jobs"
NO_JOBS_YET = "No jobs yet: press Generate above."
#: The Jobs panel's first line while no service is chosen (Generate is offered once one is).
NO_JOBS_NO_SERVICE = "No jobs yet: choose a service above."
IMPORT_AGAIN = "Import Again"

# ------------------------------------------------------------------------------ job actions

OP_STOP_WAITING = Label(
    "Stop Waiting",
    "Stop waiting for this job. The service cannot cancel a job: it may still run there and be charged. "
    "Resume brings its mesh in later at no extra cost",
)
OP_RETRY = Label("Retry", "Send the same prompt or image again as a new job (it costs credits again)")
OP_RESUME = Label(
    "Resume",
    "Check on this job again at no cost (it was paid once): after a stop, a time limit or a lost connection",
)
OP_ADD_BY_ID = Label(
    "Add Job by ID…",
    "Add a job by its ID (one started on another computer, or copied from the service's dashboard): "
    "Kiln follows it and brings the mesh in when it is done",
)
ARG_TASK_ID = Label("Job ID", "The job's ID, as the service's dashboard or Copy Details shows it")
ARG_JOB_NAME = Label("Name", "What the job is called in the list")
ADDED_JOB_NAME = "Job {id}"
ENTER_TASK_ID = "Enter the ID of the job to add."
OP_IMPORT = Label("Import", "Bring this job's mesh into the current scene")
OP_REMOVE = Label("Remove", "Take this job off the list (what it put in the scene stays)")
OP_CLEAR_FINISHED = Label("Clear Finished", "Take every finished, failed or stopped job off the list")
OP_COPY_DETAILS = Label(
    "Copy Details",
    "Copy what support needs to know about this job (its ID, what happened) to the clipboard",
)
DETAILS_COPIED = "The job's details are on the clipboard."
OP_OPEN_CACHE_FOLDER = Label(
    "Open Cache Folder", "Open the folder where Kiln keeps downloaded meshes and previews"
)
OP_WAIT_JOBS = Label(
    "Wait for Kiln Jobs",
    "Background mode: wait until this Blender's jobs are in the scene or have failed. With a window: make "
    "sure they are followed",
)
ARG_JOB_IDS = Label(
    "Job IDs",
    "Ids of the jobs to wait for and bring in, separated by commas (other Blenders' jobs too). "
    "Empty: the jobs this Blender started",
)
JOB_GONE = "That job is no longer in the list."
JOB_STILL_RUNNING = "This job is still running."
NOTHING_TO_RESUME = "There is nothing to resume for this job."
NO_MESH_YET = "This job has no mesh to bring in yet."
NO_JOB_WITH_ID = "No job with the id {ids} is in the list."

# ------------------------------------------------------------------------------------ batch

OP_GENERATE_BATCH = Label(
    "Generate Batch",
    "Make a mesh for every line of a prompt file (.txt: a prompt a line; .csv: a prompt or an image a line)",
)
ARG_PROMPT_FILE = Label(
    "Prompt File", "A .txt file with a prompt a line, or a .csv file with a prompt or an image a line"
)
ARG_SUMMARY_FILE = Label(
    "Summary File", "Write a summary here when every job is done, with a review sheet beside it (optional)"
)
CONFIRM_SEND = Label("Send", "Send the jobs")
BATCH_NOTHING_USABLE = "{file} has no usable line, so nothing was sent."
BATCH_SENDING = Plural("{file}: {n} job, {cost}.", "{file}: {n} jobs, {cost}.")
BATCH_FROM_LIBRARY = Plural(
    "1 line comes from the Kiln library (free).", "{n} lines come from the Kiln library (free)."
)
BATCH_ALL_FROM_LIBRARY = "{file}: every line came from the Kiln library, so nothing was sent."
BATCH_GENERATING = Plural("Generating 1 mesh from {file}.", "Generating {n} meshes from {file}.")
BATCH_NONE_SUCCEEDED = "No job of {file} succeeded ({outcome})."
BATCH_DONE = "{file}: {outcome}"
BATCH_OUTCOME = Plural("{n} of {total} is in the scene", "{n} of {total} are in the scene")
BATCH_OUTCOME_NO_SUMMARY = Plural(
    "{n} of {total} is in the scene; the summary could not be written to {path}",
    "{n} of {total} are in the scene; the summary could not be written to {path}",
)

# ----------------------------------------------------------------------------------- export

OP_EXPORT = Label(
    "Export…",
    "Export this job's result for a game engine: its fix-ups, LODs and collision, named for the engine",
)
ARG_EXPORT_FOLDER = Label("Folder", "Where the export is written")
EXPORT_NO_MESH = "This job has no downloaded mesh to export: press Retry, or Import first."
EXPORT_CHOOSE_FOLDER = "Choose a folder to export to."
EXPORTING = "Exporting “{name}”…"
EXPORT_FAILED = "The export to {folder} failed: Kiln's log says why."
EXPORTED = "Exported {files} to {folder}."

# ------------------------------------------------------------------- the preferences' buttons

OP_TEST_CONNECTION = Label(
    "Test Connection",
    "Ask the service whether it answers and takes the key (it costs no credits); the answer appears below",
)
CONNECTION_TEST_RUNNING = "A connection test is already running."
OP_CLEAR_CACHE = Label(
    "Clear Cache",
    "Delete downloaded meshes and previews; files of jobs still running or not yet in the scene are kept",
)
CACHE_CLEARED = Plural("Removed {n} cached file ({size}).", "Removed {n} cached files ({size}).")
OP_ANNOUNCE = Label("Kiln Announcement", "Show Kiln's sentences in the status bar")

# ---------------------------------------------------------------------------- the preferences

PREFS_CONNECT_GUIDE = (
    "To connect, Kiln needs your API key and the service's address: both are on the service's dashboard "
    "(API Keys ▸ Create Secret Key). Paste them below, then press Test Connection."
)
#: The same for a service whose address Kiln knows (Tripo, Meshy, Hyper3D Rodin): only the key.
PREFS_CONNECT_GUIDE_ADDRESS = (
    "To connect, Kiln needs the address where {service} answers (its server's address and port; no key). "
    "Type it below, then press Test Connection."
)
PREFS_CONNECT_GUIDE_KEY = (
    "To connect, Kiln needs your {service} API key: Get a {service} API Key opens the page where it is "
    "made. Paste it below, then press Test Connection."
)
PREFS_KEY_FROM_ENVIRONMENT = "{name} is set in the environment and is used instead of this key."
PREFS_ADDRESS_FROM_ENVIRONMENT = "{name} is set in the environment and is used instead of this address."
PREFS_SERVICE = "Service"
PREFS_JOBS = "Jobs"
PREFS_IMPORT = "Import"
PREFS_SHAPE = "Shape"
PREFS_FIXUPS = "Fix-ups"
PREFS_CREDITS = "Credits"
PREFS_LIBRARY = "Library"
PREFS_CACHE_SIZE = "Downloaded meshes and previews take {size}."

# ----------------------------------------------------------------- a result into the scene

IMPORT_NOTHING = "The downloaded mesh holds nothing to bring into the scene. Press Retry to make it again."
IMPORT_MESH_MISSING = (
    "The downloaded mesh is no longer in Kiln's cache (it may have been cleared). Press Retry."
)
IMPORT_DAMAGED = "Blender could not read the downloaded mesh: the file is damaged. Press Retry."
IMPORT_PREPARED_UNREADABLE = (
    "Kiln could not open the copy of the mesh it had prepared (the disk may be full, or the cache was "
    "cleared). Press Retry."
)
UNDO_IMPORT = "Import “{name}” (Kiln)"
UNDO_REUSE = "Reuse “{name}” (Kiln)"
TASK_OBJECT_NAME = "Kiln job {id}"
IMPORTED_WITH_TRIANGLES = Plural(
    "“{name}” is in the scene ({n:,} triangle).", "“{name}” is in the scene ({n:,} triangles)."
)
READY_PRESS_IMPORT = "“{name}” is ready to import: press Import in the Kiln panel."
WATCHER_UNEXPECTED = "Kiln hit an unexpected problem while following its jobs; Kiln's log says more."
LIBRARY_COPY_UNREADABLE = "The library's copy of “{name}” could not be opened."
LIBRARY_USED = "Used the library's copy of “{name}” from {date} (free)."
LIBRARY_NOT_KEPT = "Kiln could not keep this result in its asset library ({folder}); Kiln's log says why."

# -------------------------------------------------------------------- the panel's settings

SETTING_SOURCE = Label("Source", "What the mesh is made from")
SOURCE_TEXT = Label("Text", "Describe the object in words")
SOURCE_IMAGE = Label("Image", "Start from one concept image")
SETTING_LONG_PROMPT = Label(
    "Long Prompt", "Send the whole text of this Text block as the prompt (write it in the Text Editor)"
)
SETTING_IMAGE_FROM = Label("Image From", "Where the concept image comes from")
IMAGE_FROM_FILE = Label("File", "An image file on this computer")
IMAGE_FROM_BLENDER = Label("Blender", "An image in this .blend file, Render Result included")
IMAGE_FROM_URL = Label("Web", "A public https:// address of an image")
SETTING_IMAGE = Label("Image", "An image in this .blend file to send (saved as a PNG first)")
FILTER_ALL = Label("All", "Every job")
FILTER_ACTIVE = Label("Active", "Jobs being sent, made or downloaded")
FILTER_DONE = Label("Done", "Jobs with a mesh: ready to import or in the scene")
FILTER_FAILED = Label(
    "Failed", "Jobs that failed, were stopped, gave up waiting or may not have reached the service"
)
SETTING_ACTIVE_JOB = "Active Job"
SETTING_SHOW = "Show"
ALREADY_GENERATED = "Already generated on {date}:"
USE_IT_FREE = "Use It (Free)"
GENERATE_ANYWAY = "Generate Anyway"

# -------------------------------------------------------------- a Blender without Kiln's modules

MODULES_MISSING = Plural(
    "Kiln needs the Python module {names}, which this Blender's Python lacks. Blender from blender.org "
    "includes it; on Debian or Ubuntu install {packages}, then restart Blender.",
    "Kiln needs the Python modules {names}, which this Blender's Python lacks. Blender from blender.org "
    "includes them; on Debian or Ubuntu install {packages}, then restart Blender.",
)

# ------------------------------------------------------------------ provenance
# Where a result came from, in the files Kiln writes and in the disclosure report (docs/provenance.md).
# What goes into a file (the description, what was done) is written in English: files are for stores.

OPTION_CREDIT_LINE = Label(
    "Credit Line",
    "Your name or studio: written as the creator into every file Kiln exports and into the disclosure "
    "report (optional)",
)
PREFS_PROVENANCE = "Disclosure"
PROVENANCE_FROM_PROMPT = "Created with AI: made by {service} from the prompt “{prompt}” (its job {task})."
PROVENANCE_FROM_IMAGE = "Created with AI: made by {service} from the image {image} (its job {task})."
DONE_LOD = "Made as LOD {n} with {percent}% of the triangles."
DONE_COLLISION = "Made as its collision hull."
DONE_EXPORTED = "Exported as {file}."
OP_DISCLOSURE_REPORT = Label(
    "AI Disclosure Report…",
    "Write a table of every result Kiln made in this file (its service, prompt or image, job, date, credit "
    "and what was done to it since), as CSV and HTML, for a store's AI disclosure",
)
ARG_DISCLOSURE_FILE = Label("File", "Where the report is written: a .csv, and an .html beside it")
ARG_DISCLOSURE_LIBRARY = Label("Include the Library", "List every asset of the Kiln asset library as well")
DISCLOSURE_CHOOSE_FILE = "Choose where to write the disclosure report."
DISCLOSURE_WRITTEN = Plural(
    "The disclosure report lists {n} result made with AI: {files}.",
    "The disclosure report lists {n} results made with AI: {files}.",
)
DISCLOSURE_NOT_WRITTEN = "The disclosure report could not be written to {folder}: Kiln's log says why."
DISCLOSURE_TITLE = "Made with AI: {project}"
DISCLOSURE_INTRO = (
    "Every asset below was created with generative AI (IPTC digital source type: trained algorithmic "
    "media) through Kiln, a Blender extension: the service that made it, what it was asked for, the "
    "service's own job number, when, the artist's credit line, and what was done to it since."
)
DISCLOSURE_NONE = "Nothing in this file was made with Kiln."
DISCLOSURE_COL_NAME = "Name"
DISCLOSURE_COL_WHERE = "Where"
DISCLOSURE_COL_SERVICE = "Service"
DISCLOSURE_COL_REQUEST = "Prompt or Image"
DISCLOSURE_COL_JOB = "Job"
DISCLOSURE_COL_DATE = "Date"
DISCLOSURE_COL_CREDIT = "Credit"
DISCLOSURE_COL_DONE = "Done since"
DISCLOSURE_COL_SOURCE = "Digital source type"

# ------------------------------------------------------------------ image checks
# What Kiln finds in a concept image before anything is sent, and how well the mesh matches it after
# (``api/checks/image_preflight.py``, ``api/checks/fidelity.py``).

IMAGE_NOT_A_PICTURE = (
    "Kiln could not read {name} as a picture, so nothing was sent. Save it again as PNG or JPEG, "
    "then pick it again."
)
IMAGE_SINGLE_COLOUR = (
    "{name} is empty or a single colour, with no object to make a mesh of, so nothing was sent. "
    "Pick the image of your object."
)
IMAGE_TOO_SMALL = (
    "{name} is {width} by {height} pixels and the service takes at least {side} pixels on each side, "
    "so nothing was sent. Pick a larger image."
)
IMAGE_CUT_OFF = (
    "The object in {name} touches the edge of the picture, so part of it may be cut off and missing "
    "from the mesh. Use an image that shows all of it."
)
IMAGE_SUBJECT_SMALL = (
    "The object in {name} fills little of the picture, so the mesh may lack detail. "
    "Leave Prepare Image on, or crop the image closer."
)
IMAGE_SEVERAL_SUBJECTS = (
    "{name} seems to show several separate objects, and the service makes one mesh of them all. "
    "Use an image of one object."
)
IMAGE_BUSY_BACKGROUND = (
    "The background of {name} is busy, and the service may model it too. "
    "Use an image of the object on a plain background."
)
IMAGE_BLURRED = "{name} is very blurred, so the mesh will lack detail. Use a sharper image."
IMAGE_STRICT_REFUSED = (
    "Nothing was sent: the image check found a problem, and you asked to send only clean images."
)
IMAGE_NOT_LOOKED_AT = (
    "Kiln could not look closely at the image on this Blender (its Python lacks the Pillow module), "
    "so it is sent as it is."
)
IMAGE_URL_UNREADABLE = (
    "Kiln could not fetch the image at {url} to check it, so nothing was sent. "
    "Check the address, or save the image and pick the file."
)
IMAGE_CHECKING = "Checking {name} before anything is sent…"
IMAGE_PREPARED = (
    "Kiln cropped {name} to the object, centred it on a plain square of {side} pixels and sent that."
)
IMAGE_LOOKS_FINE = "{name} looks fine: one object on a plain background."
IMAGE_SEND_ANYWAY = Label("Send Anyway", "Send this image although the check found a problem")
ARG_PREFLIGHT = Label("Image Check", "What to do when the image check finds a problem in the image")
PREFLIGHT_ASK = Label("Ask", "Say what the check found and ask before sending (a script gets a warning)")
PREFLIGHT_STRICT = Label("Strict", "Send nothing when the check finds any problem")
ARG_PREPARE = Label(
    "Prepare Image",
    "Crop the image to the object, centre it on a plain square and fit it to the service's size "
    "before it is sent",
)
ARG_VARIANTS = Label(
    "Variants", "How many versions to make from the image; each costs a job, and the best match is placed"
)
FIDELITY_GOOD = "The mesh matches your image well ({percent}% alike from its best side)."
FIDELITY_FAIR = "The mesh matches your image in part ({percent}% alike from its best side)."
FIDELITY_POOR = (
    "The mesh looks unlike your image ({percent}% alike from its best side): try another image or a variant."
)
FIDELITY_UNMEASURED = "How well the mesh matches your image could not be measured."
IMAGE_LEFT_OUT = "Kiln leaves {name} out; the others are sent."
IMAGE_CHECK_LOST = (
    "The image check's outcome is gone (was Kiln reloaded?), so nothing was sent. Press Generate again."
)
IMAGE_VARIANTS_GENERATING = Plural(
    "Generating 1 variant of “{name}”.",
    "Generating {n} variants of “{name}”: the best match with your image is shown, the others wait behind "
    "the variant buttons.",
)
IMAGE_VARIANTS_IMPORTED = Plural(
    "{n} variant of “{name}” is in the scene.",
    "{n} variants of “{name}” are in the scene: the best match with your image is shown.",
)

# ------------------------------------------------------------------ the services
# Said of any service; ``{service}`` is its own name (Tripo, Meshy, Hyper3D Rodin: never translated).

SERVICE_TAKES_NO_TEXT = (
    "{service} does not make meshes from a prompt, so nothing was sent. Choose another service."
)
SERVICE_TAKES_NO_IMAGE = (
    "{service} does not make meshes from an image, so nothing was sent. Choose another service."
)
SERVICE_TIER_UNKNOWN = (
    "{service} has no model called “{tier}”, so nothing was sent. Pick one the Sidebar offers."
)
SERVICE_TIER_RETIRED = (
    "{service} has retired its model “{tier}”, so nothing was sent. Pick one the Sidebar offers."
)
SERVICE_TAKES_NO_IMAGE_URL = (
    "{service} does not take an image by its web address, so nothing was sent. "
    "Save the image and pick the file."
)
SERVICE_TAKES_ONE_IMAGE = (
    "{service} takes one image per job, so nothing was sent. Send the front view alone, or choose a "
    "service that takes several."
)
SERVICE_LACKS_OPTION = (
    "{service} has no “{option}” choice, so nothing was sent. Leave it out, or choose a service that has it."
)
OPTION_SERVICE = Label("Service", "The 3D generation service your jobs go to; each keeps its own API key")
OPTION_SERVICE_INTERFACE = Label(
    "Custom Service", "A service that speaks Kiln's service interface: you give its address and key"
)
#: A service's tooltip in the service menu, by what it needs (``ServiceInfo.choice_words``).
SERVICE_TIP_KEY = "{service}: your {service} API key, and its credits"
SERVICE_TIP_ADDRESS = "{service}: a server you reach at its address, with no API key"
SERVICE_TIP_LOCAL = "{service}: a server on your own or your studio's machine, at its address; no credits"
#: The service menu's value until the artist chooses one (Kiln chooses no service for the artist).
OPTION_SERVICE_NOT_CHOSEN = Label(
    "Choose a Service", "No service is chosen yet: choose the one your jobs go to"
)
#: The Sidebar's setup box while no service is chosen: each service, with one line on what it costs and needs.
SETUP_CHOOSE_SERVICE = "Choose the service Kiln sends your work to:"
USE_SERVICE = "Use {service}"
#: The buttons of the services whose names are translated: some languages decline such a name
#: ("Eigenen Dienst verwenden") or give it an article ("Utiliser le serveur Hunyuan3D").
USE_CUSTOM_SERVICE = "Use Custom Service"
USE_HUNYUAN3D_SERVER = "Use Hunyuan3D Server"
SERVICE_COSTS_LOCAL = "runs on your studio's server, no credits, no key"
SERVICE_COSTS_KEY_CREDITS = "needs an API key; paid in its credits"
SERVICE_COSTS_KEY_DOLLARS = "needs an API key; paid in dollars"
SERVICE_COSTS_KEY_ADDRESS = "needs its address and an API key; paid in its credits"
SERVICE_COSTS_ADDRESS = "needs its address"
SERVICE_NOT_CHOSEN = (
    "No service is chosen yet, so nothing was sent. Choose a service in Kiln's Sidebar or pass service=…"
)
OP_CHOOSE_SERVICE = Label(
    "Choose Service", "Send your jobs to this service (you can change it in the Sidebar at any time)"
)
OPTION_SERVICE_FAL = Label("fal.ai", "fal.ai: your fal.ai API key; fal bills each model in dollars")
OPTION_SERVICE_COMFYUI = Label("ComfyUI", "ComfyUI on your studio's own GPU machine: no key, no credits")
OPTION_SERVICE_HUNYUAN3D = Label(
    "Hunyuan3D Server", "Hunyuan3D's own server on your studio's GPU machine: no key, no credits"
)
GET_SERVICE_KEY = "Get a {service} API Key"
ARG_PBR = Label(
    "PBR Materials", "Ask for physically based materials (base colour, metal, roughness, normal maps)"
)
ARG_QUAD = Label("Quad Mesh", "Ask for a mesh of four-sided faces, easier to edit and subdivide")
ARG_TEXTURE = Label(
    "Texture", "Ask for a textured mesh; off: the shape alone, which some services charge less for"
)
ARG_POLYGONS = Label(
    "Face Limit",
    "How many faces the service may give the mesh; 0: the service's default (Kiln's own "
    "reduction is the Triangle Budget)",
)
ARG_STYLE = Label("Style", "One of the service's own styles; empty: none")
OPTION_TIER = Label("Model", "The service's model for this job; the price on Generate follows it")
#: A sentence about a job, said with the service it went to in front.
SERVICE_SAID = "{service}: {said}"
JOB_SENT_TO = "Sent to {service}"
SERVICE_PRICE_UNKNOWN = (
    "{service} publishes no price Kiln can show for this job; your balance there says what it cost."
)
#: This session's spending on one service, when it used several (each counts in its own credits).
SPENT_ON_SERVICE = "{service}: {jobs}, {credits}"
SPENT_ON_SERVICE_UNPRICED = "{service}: {jobs}, {credits}, and {unpriced}"
CONNECTED_TO_SERVICE = "{service}: connected, your API key works."
CONNECTED_WITH_BALANCE = Plural(
    "{service}: connected, {amount} credit left.", "{service}: connected, {amount} credits left."
)

# ------ what services can do
# Several views of one object, a service's own options in the panel, re-texturing a mesh, cancelling
# on the service. ``{service}`` is the service's own name.

SERVICE_TAKES_FEWER_VIEWS = Plural(
    "{service} takes at most {n} image of one object, so nothing was sent. Leave a view out.",
    "{service} takes at most {n} images of one object, so nothing was sent. Leave a view out.",
)
SERVICE_TAKES_NO_RETEXTURE = (
    "{service} cannot re-texture a mesh, so nothing was sent. Choose a service that can."
)
SERVICE_CANNOT_CANCEL = (
    "{service} has no way to cancel a job, so Kiln only stopped waiting. "
    "The service may still finish it (and charge for it)."
)
NOTE_CANCELLING = "Asking {service} to cancel this job…"
NOTE_CANCELLED_ON_SERVICE = (
    "Cancelled on {service}. Count its credits as spent: {service} does not say it gives them back."
)
NOTE_CANCEL_FAILED = (
    "{service} did not confirm the cancel. Kiln stopped waiting; the service may still finish the job "
    "(and charge for it): Resume brings its mesh in at no extra cost."
)
OP_CANCEL_ON_SERVICE = Label(
    "Cancel on Service",
    "Ask the service to delete this job: it cannot be resumed then, and credits the service already "
    "charged do not come back",
)
#: Its question says "Delete": the dialog's other button is Blender's own "Cancel" (ask nothing).
CANCEL_ON_SERVICE_TITLE = "Delete on {service}?"
CANCEL_ON_SERVICE_CONFIRM = "Delete on {service}"
CANCEL_ON_SERVICE_QUESTION = (
    "{service} deletes “{name}” and its files: the job cannot be resumed, and its credits count as "
    "spent ({service} does not say it gives them back)."
)
ADD_BY_ID_NOT_ON_SERVICE = (
    "{service} answers about a job only with what its first answer gave Kiln, so a job cannot be added "
    "there by its ID. A job Kiln sent keeps its Resume."
)
#: Generate while a job asking exactly the same is still running: a second click pays twice.
ANOTHER_ONE_TITLE = "Another One?"
ANOTHER_ONE_QUESTION = "“{name}” is already being made. Send another one? It costs {cost}."
ANOTHER_ONE_QUESTION_UNPRICED = "“{name}” is already being made. Send another one? Its price is unknown."
#: The balance the service last gave (Test Connection), beside the price under Generate.
BALANCE_LEFT = "{service}: {credits} left"
OVER_BALANCE = "This costs {cost}, more than the {credits} left on {service}: the service may refuse it."
OP_GENERATE_FROM_VIEWS = Label(
    "Generate from Views",
    "Generate one 3D mesh from several images of the same object: its front, and its back, left or right",
)
ARG_VIEW_FRONT = Label("Front", "The front view: an image file's path, or the name of a Blender image")
ARG_VIEW_BACK = Label("Back", "The back view (optional): an image file's path, or a Blender image's name")
ARG_VIEW_LEFT = Label("Left", "The left view (optional): an image file's path, or a Blender image's name")
ARG_VIEW_RIGHT = Label("Right", "The right view (optional): an image file's path, or a Blender image's name")
VIEWS_NEED_FRONT = "Give the front view: the other views go with it. Nothing was sent."
VIEW_NOT_FOUND = (
    "There is no image file or Blender image called “{name}”, so nothing was sent. "
    "Check the path or the image's name."
)
SETTING_MORE_VIEWS = Label(
    "More Views",
    "Add the back, left or right view of the same object: the service makes one mesh from them all",
)
VIEWS_OFFERED = Plural(
    "{service} takes {n} image of one object.", "{service} takes up to {n} images of one object."
)
STYLE_NONE = Label("No Style", "The service's own look, no style")
OP_RETEXTURE_SELECTED = Label(
    "Re-texture Selected",
    "Send the selected mesh to the service for new textures, from a prompt or an image; the result "
    "lands beside it and the original stays as it is",
)
ARG_STYLE_PROMPT = Label("Style Prompt", "The look of the new textures, in words")
ARG_STYLE_IMAGE = Label("Style Image", "An image file whose look the new textures follow")
PANEL_RETEXTURE = "Re-texture"
RETEXTURE_HINT = "Select a mesh, describe its new look, then press Re-texture Selected."
RETEXTURE_WITH_COST = "Re-texture Selected ({cost})"
RETEXTURE_NOT_OFFERED = "{service} cannot re-texture a mesh: choose a service that can, above."
RETEXTURE_NEEDS_MESH = "Select one mesh object to re-texture. Nothing was sent."
RETEXTURE_PROMPT_OR_IMAGE = "Give a style prompt or a style image, one of the two. Nothing was sent."
RETEXTURE_TOO_LARGE = (
    "The selected mesh is {size} as a GLB file, more than the {limit} {service} takes, so nothing "
    "was sent. Decimate it, then try again."
)
RETEXTURE_EXPORT_FAILED = "Blender could not export the selected mesh, so nothing was sent."
RETEXTURE_PROMPT_TOO_LONG = (
    "{service} takes a style prompt of at most {limit} characters; this one has {length}. Nothing was sent."
)

# ------------------------------------------------------------------ Tripo

# Tripo's own words: its model versions and styles, and the errors its error codes name.

TRIPO_TIER_V25 = Label("v2.5", "Tripo's model v2.5 with standard textures")
TRIPO_TIER_V31 = Label("v3.1", "Tripo's model v3.1 with standard textures")
TRIPO_TIER_V31_DETAILED = Label(
    "v3.1 Detailed", "Tripo's model v3.1 with detailed textures: sharper, costs more"
)
TRIPO_TIER_P1 = Label("P1", "Tripo's model P1: clean low-poly topology, costs the most")
TRIPO_CONTENT_REFUSED = (
    "Tripo refused this prompt or image under its content policy, so nothing was made. "
    "Change the prompt or the image, then try again."
)
TRIPO_KEY_REJECTED = (
    "Tripo did not accept your API key. Check the key in Kiln's preferences, "
    "or create a new one on Tripo's platform."
)
TRIPO_KEY_FORBIDDEN = (
    "Tripo refused your API key for this. Check the key's permissions on Tripo's platform, "
    "or create a new one there."
)
TRIPO_OUT_OF_CREDITS = (
    "Your Tripo account does not have enough credits for this job. Buy credits on Tripo's "
    "platform, or pick a cheaper model."
)
TRIPO_TOO_MANY_JOBS = (
    "Tripo is already making as many of your jobs as your account allows at once. "
    "Kiln tries again later; run fewer jobs at once to avoid the wait."
)
TRIPO_OLD_API_JOB_GONE = (
    "Tripo no longer knows this job: Kiln sent it to Tripo's old API, which Tripo shut down on "
    "31 October 2026. Kiln sent nothing again and nothing more was charged; the job's ID at Tripo "
    "is in the details."
)
TRIPO_MODEL_OUTDATED = (
    "Tripo no longer offers this model version. Pick another model in the Sidebar, then try again."
)
TRIPO_POLYGONS_OUT_OF_RANGE = (
    "Tripo takes a Face Limit from {low:,} to {high:,}, so nothing was sent. "
    "Set one in that range, or 0 to let Tripo choose."
)
TRIPO_OPTION_UNREADABLE = "Kiln could not read the “{option}” choice, so nothing was sent to Tripo."

# ------------------------------------------------------------------ Meshy
MESHY_TIER_7_1 = Label("Meshy 7.1", "Meshy's current model, the one it recommends: the most detail")
MESHY_TIER_6 = Label("Meshy 6", "Meshy's previous model, still supported")
MESHY_TIER_5 = Label("Meshy 5", "Meshy retired this model on 2026-10-10")
MESHY_CONTENT_REFUSED = (
    "{service} refused this prompt or image under its content policy, so no mesh was made. "
    "Change the prompt or the image, then try again."
)
MESHY_IMAGE_FORMAT = (
    "{service} takes PNG and JPEG images only, so nothing was sent. "
    "Save the image as PNG or JPEG, then pick it again."
)
MESHY_NO_PREVIEW = (
    "{service} cannot add textures: the shape step of this job left nothing to texture. "
    "Press Retry to make it again (a retry costs credits)."
)
MESHY_POLYGONS_RANGE = (
    "{service} takes a Face Limit from {low:,} to {high:,}, so nothing was sent. Pick one in that range, "
    "or 0 for {service}'s own choice."
)

# ------------------------------------------------------------------ Hyper3D Rodin
# Hyper3D Rodin's tiers (their names are Rodin's own) and what only Rodin says.

RODIN_TIER_25_EXTREME_LOW = Label("Gen-2.5 Extreme Low", "Rodin Gen-2.5, fastest: simple assets")
RODIN_TIER_25_LOW = Label("Gen-2.5 Low", "Rodin Gen-2.5: clean assets and small hard-surface props")
RODIN_TIER_25_MEDIUM = Label("Gen-2.5 Medium", "Rodin Gen-2.5: balanced structure and detail")
RODIN_TIER_25_HIGH = Label("Gen-2.5 High", "Rodin Gen-2.5: richer structure and smooth surfaces")
RODIN_TIER_25_EXTREME_HIGH = Label(
    "Gen-2.5 Extreme High", "Rodin Gen-2.5, most detailed: fine, high-frequency detail (1 credit)"
)
RODIN_TIER_GEN2 = Label("Gen-2", "Rodin's previous generation")
RODIN_TIER_REGULAR = Label("Regular", "Balanced quality, the service's default")
RODIN_TIER_DETAIL = Label("Detail", "More surface detail and higher resolution")
RODIN_TIER_SMOOTH = Label("Smooth", "Clean, smooth surfaces with sharp edges")
RODIN_TIER_SKETCH = Label("Sketch", "Fast and rough, for trying ideas")
RODIN_CONTENT_REFUSED = (
    "{service} refused this prompt or image under its content rules, so it made nothing. "
    "Change the prompt or the image, then try again."
)
RODIN_NO_SUBSCRIPTION_KEY = (
    "{service} is asked about a job with a reference its first answer gave, and Kiln has none for "
    "this job, so it cannot ask how the job went. Generate it again."
)
RODIN_OUT_OF_CREDITS = (
    "Your {service} account does not have enough credits for this job. Top up in the {service} "
    "API dashboard, then try again."
)
RODIN_POLYGONS_OUT_OF_RANGE = (
    "{service} makes meshes of {low:,} to {high:,} polygons, so nothing was sent for {value}. "
    "Choose a number in that range, or 0 to let the service choose."
)

# ------------------------------------------------------------------------------ fal.ai
FAL_TIER_TRELLIS = Label("TRELLIS", "Microsoft's TRELLIS on fal.ai: fal lists $0.02 a mesh")
FAL_TIER_TRELLIS_2 = Label(
    "TRELLIS.2", "Microsoft's TRELLIS.2 on fal.ai, with PBR textures: fal lists $0.30 a mesh"
)
FAL_TIER_HUNYUAN3D_V2 = Label(
    "Hunyuan3D 2", "Tencent's Hunyuan3D 2 on fal.ai, textured: fal lists $0.48 a mesh"
)
FAL_TIER_HUNYUAN3D_V2_SHAPE = Label(
    "Hunyuan3D 2 Shape",
    "Tencent's Hunyuan3D 2 on fal.ai, shape only, without textures: fal lists $0.16 a mesh",
)
FAL_KEY_REJECTED = (
    "fal.ai did not accept your API key. Check the key in Kiln's preferences, "
    "or make a new one at fal.ai/dashboard/keys."
)
FAL_BALANCE_EXHAUSTED = (
    "fal.ai locked your account because its balance is used up. Add funds at fal.ai/dashboard/billing, "
    "then send the job again."
)

# ------------------------------------------------------------------ servers of the studio's own
# ComfyUI and Hunyuan3D's own server: they run on the studio's machine, take no key, cost no credits.

LOCAL_NO_CREDITS = "no credits (your own server)"
LOCAL_RUNS_ON_SERVER = "Runs on your studio's server at {host}: costs no credits, needs no key."
LOCAL_SERVICE_CONNECTED = "{service} answers at {host}."
LOCAL_RETEXTURE_NEEDS_IMAGE = (
    "{service} textures a mesh from an image only, so nothing was sent. Give an image as the style."
)

COMFYUI_TIER_HUNYUAN3D_21 = Label(
    "Hunyuan3D 2.1", "Hunyuan3D-2.1 with ComfyUI's own nodes: a mesh without textures"
)
COMFYUI_TIER_TRELLIS_2 = Label("TRELLIS.2", "TRELLIS.2 with ComfyUI's own nodes: a mesh with its colours")
COMFYUI_TIER_STUDIO = Label(
    "Studio Workflow", "Your studio's own ComfyUI workflow, the file named by KILN_COMFYUI_WORKFLOW"
)
COMFYUI_MISSING = (
    "{service} at {host} lacks what this workflow needs, so nothing was sent: {missing}. "
    "Install it on the server (Kiln's ComfyUI page says how), then try again."
)
COMFYUI_WORKFLOW_UNUSABLE = (
    "Kiln cannot use the ComfyUI workflow “{name}”, so nothing was sent. Save it in API format, "
    "with one Load Image node and one Save GLB node."
)
COMFYUI_WORKFLOW_REFUSED = (
    "{service} refused the workflow, so nothing was queued. The details say which node and input it "
    "objected to."
)

HUNYUAN3D_TIER_SERVER = Label("Your Server's Model", "The Hunyuan3D model your server loaded (2.0 or 2.1)")
HUNYUAN3D_LICENCE = (
    "Hunyuan3D's licence does not cover the European Union, the United Kingdom or South Korea. "
    "Check that your studio may use it there."
)
HUNYUAN3D_TEXTURE_NEEDED = (
    "{service}'s 2.1 server only finishes jobs with textures, so nothing was sent. Turn Texture on."
)
HUNYUAN3D_NO_RETEXTURE = (
    "{service}'s 2.1 server cannot texture a mesh it is sent, so nothing was sent. Its 2.0 server can."
)
HUNYUAN3D_POLYGONS_RANGE = (
    "{service} textures meshes of {low:,} to {high:,} faces, so nothing was sent. Pick one in that range, "
    "or 0 for {service}'s own choice."
)
HUNYUAN3D_OTHER_PORT = (
    "{service} does not answer at {host}, but a server answers at {other}: set that address in "
    "Kiln's preferences."
)
