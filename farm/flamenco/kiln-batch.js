// Kiln on a Flamenco 3 farm: a custom job type. Drop this file into the Manager's `scripts/`
// folder (beside flamenco-manager) and restart the Manager; "Kiln Batch" appears as a job type.
//
// It compiles the same work as farm/kiln-batch.openjd.yaml: one Blender task per chunk of prompts,
// then one summary task that depends on all of them. Workers run Kiln's farm script
// (farm/kiln_farm.py); they need KILN_API_KEY (and KILN_BASE_URL if not the default) in their own
// environment. The key is never a job setting, so it never reaches the Manager, the job or its logs.

const JOB_TYPE = {
  label: "Kiln Batch",
  description: "Text prompts or concept images to 3D assets (.blend + .glb each) through Kiln",
  settings: [
    { key: "prompts_file", type: "string", subtype: "file_path", required: true,
      description: "The .txt (one prompt a line) or .csv (prompt or image column) file" },
    { key: "prompt_count", type: "int32", required: true, default: 1,
      description: "How many prompts the file holds (python farm/kiln_farm.py estimate prints it)" },
    { key: "output_dir", type: "string", subtype: "dir_path", required: true,
      description: "Shared storage for assets/, ledger/, manifests/ and summary.json; reuse it to resume" },
    { key: "kiln_zip", type: "string", subtype: "file_path", required: true,
      description: "The built Kiln extension (dist/kiln-<version>.zip)" },
    { key: "farm_script", type: "string", subtype: "file_path", required: true,
      description: "Kiln's farm script, farm/kiln_farm.py from the Kiln repository" },
    { key: "resolution", type: "string", choices: ["AUTO", "1024", "1536"], default: "AUTO", required: true,
      description: "Mesh resolution for lines that do not set their own (on a service whose quality is a resolution)" },
    { key: "service", type: "string", default: "",
      description: "The 3D generation service by its id in Kiln, any the Kiln zip registers (workers need its key, e.g. KILN_TRIPO_API_KEY); empty: the first Kiln offers" },
    { key: "chunk_size", type: "int32", default: 10, required: true, description: "Prompts per task" },
    { key: "max_credits", type: "int32", default: 0, required: true,
      description: "Stop before sending anything if the whole job is estimated above this (0 = no cap)" },
    // Game-ready output (docs/game-ready.md); a CSV's triangles, lods and export columns win per line.
    { key: "fix_merge", type: "bool", default: false, description: "Merge each result's vertices by distance" },
    { key: "fix_normals", type: "bool", default: false, description: "Make every part face out" },
    { key: "fix_loose", type: "float", default: 0.0, description: "Delete parts below this share of the triangles" },
    { key: "triangles", type: "int32", default: 0, description: "Triangle budget per result (0 = as made)" },
    { key: "lods", type: "string", default: "", description: "LOD ratios, e.g. 0.5,0.25" },
    { key: "collision", type: "string", choices: ["NONE", "HULL"], default: "NONE", description: "Collision mesh" },
    { key: "engine", type: "string", choices: ["NONE", "UNREAL", "UNITY", "GODOT"], default: "NONE",
      description: "Export every result for this engine to output_dir/export" },
  ],
};

function compileJob(job) {
  const settings = job.settings;
  const count = Number(settings.prompt_count);
  const size = Number(settings.chunk_size);
  if (!(count >= 1) || !(size >= 1)) {
    throw `Kiln Batch needs a prompt count and a chunk size of at least 1 (got ${settings.prompt_count} and ${settings.chunk_size})`;
  }
  const common = [
    "--prompts", settings.prompts_file,
    "--output", settings.output_dir,
    "--kiln-zip", settings.kiln_zip,
    "--resolution", String(settings.resolution || "AUTO"),
    "--service", String(settings.service || ""),
  ];
  const summary = author.Task("Summarize", "blender");
  summary.addCommand(kilnCommand(settings, ["summarize", ...common]));
  for (const [first, last] of chunks(count, size)) {
    const task = author.Task(`Generate ${first}-${last}`, "blender");
    const items = first === last ? `${first}` : `${first}-${last}`;
    const args = ["generate", ...common, "--max-credits", String(settings.max_credits || 0), ...gameArgs(settings), "--items", items];
    task.addCommand(kilnCommand(settings, args));
    job.addTask(task);
    summary.addDependency(task);
  }
  job.addTask(summary);
}

// The game-ready arguments of a Generate task, with the farm script's defaults when a setting is absent.
function gameArgs(settings) {
  return [
    "--fix-merge", settings.fix_merge ? "1" : "0",
    "--fix-normals", settings.fix_normals ? "1" : "0",
    "--fix-loose", String(settings.fix_loose || 0),
    "--triangles", String(settings.triangles || 0),
    `--lods=${settings.lods || ""}`,
    "--collision", String(settings.collision || "NONE"),
    "--engine", String(settings.engine || "NONE"),
  ];
}

// Blender in background, factory settings, running the farm script (no .blend file is opened).
function kilnCommand(settings, args) {
  return author.Command("blender-render", {
    exe: "{blender}",
    exeArgs: "{blenderArgs}",
    argsBefore: ["--factory-startup"],
    args: ["-P", settings.farm_script, "--", ...args],
  });
}

// [first, last] prompt numbers (1-based, inclusive) of each chunk.
function chunks(count, size) {
  const ranges = [];
  for (let first = 1; first <= count; first += size) {
    ranges.push([first, Math.min(first + size - 1, count)]);
  }
  return ranges;
}
