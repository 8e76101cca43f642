// Kiln's Flamenco job type, compiled under Node against a SMALL STAND-IN of Flamenco's job-compiler
// API (`author.Task`, `author.Command`, `task.addCommand`, `task.addDependency`, `job.addTask`).
// This is not Flamenco: it checks what the script asks Flamenco to run, not a Flamenco Manager.
// Run with `node --test tests/python/farm/` (pytest runs it from tests/python/farm/test_flamenco.py).

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const test = require("node:test");
const vm = require("node:vm");

const SCRIPT = path.join(__dirname, "..", "..", "..", "farm", "flamenco", "kiln-batch.js");

function load() {
  const author = {
    Task: (name, type) => {
      const task = { name, type, commands: [], dependencies: [] };
      task.addCommand = (command) => task.commands.push(command);
      task.addDependency = (other) => task.dependencies.push(other);
      return task;
    },
    Command: (name, parameters) => ({ name, parameters }),
  };
  const context = vm.createContext({ author });
  const source = fs.readFileSync(SCRIPT, "utf8");
  return vm.runInContext(`${source}\n;({ JOB_TYPE, compileJob })`, context, { filename: SCRIPT });
}

// Arrays made inside the vm context have that context's prototypes: compare plain copies.
const plain = (value) => JSON.parse(JSON.stringify(value));

function compile(settings) {
  const { compileJob } = load();
  const job = { settings, tasks: [] };
  job.addTask = (task) => job.tasks.push(task);
  compileJob(job);
  return job.tasks;
}

const SETTINGS = {
  prompts_file: "/farm/level3/props.txt",
  prompt_count: 5,
  output_dir: "/farm/level3/out",
  kiln_zip: "/farm/kiln-0.1.0.zip",
  farm_script: "/farm/kiln/farm/kiln_farm.py",
  resolution: "1536",
  service: "TRIPO",
  chunk_size: 2,
  max_credits: 40,
  fix_merge: false,
  fix_normals: true,
  fix_loose: 0.01,
  triangles: 5000,
  lods: "0.5,0.25",
  collision: "HULL",
  engine: "UNREAL",
};

test("the job type offers the same settings as the OpenJD template", () => {
  const keys = load().JOB_TYPE.settings.map((s) => s.key);
  assert.deepEqual(plain(keys), Object.keys(SETTINGS));
  assert.ok(!keys.some((k) => /key|token|secret/i.test(k)), "the API key is never a job setting");
});

test("five prompts in chunks of two: three Blender tasks, then a summary that waits for them", () => {
  const tasks = compile(SETTINGS);
  assert.deepEqual(tasks.map((t) => t.name), ["Generate 1-2", "Generate 3-4", "Generate 5-5", "Summarize"]);
  const generate = tasks.slice(0, 3);
  const summary = tasks[3];
  assert.equal(summary.dependencies.length, 3);
  assert.ok(summary.dependencies.every((task, i) => task === generate[i]));
  const items = generate.map((t) => {
    const args = t.commands[0].parameters.args;
    return args[args.indexOf("--items") + 1];
  });
  assert.deepEqual(items, ["1-2", "3-4", "5"]);
  for (const task of tasks) {
    assert.equal(task.commands.length, 1);
    const { name, parameters } = task.commands[0];
    assert.equal(name, "blender-render");
    assert.equal(parameters.exe, "{blender}");
    assert.deepEqual(plain(parameters.argsBefore), ["--factory-startup"]);
    assert.deepEqual(plain(parameters.args.slice(0, 3)), ["-P", SETTINGS.farm_script, "--"]);
  }
  const first = generate[0].commands[0].parameters.args;
  assert.deepEqual(plain(first.slice(3)), [
    "generate", "--prompts", SETTINGS.prompts_file, "--output", SETTINGS.output_dir,
    "--kiln-zip", SETTINGS.kiln_zip, "--resolution", "1536", "--service", "TRIPO", "--max-credits", "40",
    "--fix-merge", "0", "--fix-normals", "1", "--fix-loose", "0.01", "--triangles", "5000",
    "--lods=0.5,0.25", "--collision", "HULL", "--engine", "UNREAL", "--items", "1-2",
  ]);
  assert.equal(summary.commands[0].parameters.args[3], "summarize");
});

test("a prompt count below one is refused with a sentence", () => {
  assert.throws(() => compile({ ...SETTINGS, prompt_count: 0 }), /at least 1/);
});
