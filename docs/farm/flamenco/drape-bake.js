// drape on Flamenco: a custom job type with one task per shard of a batch
// and a last task merging the shards' summaries. Copy this file into the
// Manager's scripts/ folder (flamenco-manager/scripts/drape-bake.js) and
// restart the Manager; submit jobs of type "drape-bake" from a script or
// Flamenco's API. Batch must resolve on every Worker (shared storage).
//
// Not run against a live Manager by drape's tests: they load this file in
// Node with a stub of Flamenco's author API and check the tasks it makes.

const JOB_TYPE = {
  label: "drape bake",
  description: "Bake cloth with drape, one task per shard of a batch",
  settings: [
    { key: "batch", type: "string", subtype: "file_path", required: true,
      description: "Folder of scene files (searched recursively) or list file" },
    { key: "shards", type: "int32", default: 4, required: true,
      description: "How many tasks share the batch" },
    { key: "summaries", type: "string", subtype: "dir_path", required: true,
      description: "Where each shard writes summary-I.json, and the merge report.json and report.md" },
    { key: "drape", type: "string", default: "drape",
      description: "The drape binary on the Workers" },
  ],
};

function compileJob(job) {
  const s = job.settings;
  const shards = s.shards;
  if (!(Number.isInteger(shards) && shards >= 1)) {
    throw `shards must be a whole number >= 1, not ${shards}`;
  }
  const bakes = [];
  for (let i = 0; i < shards; i++) {
    const task = author.Task(`shard ${i}/${shards}`, "misc");
    task.addCommand(author.Command("exec", {
      exe: s.drape,
      args: ["bake", s.batch, "-r", "--shard", `${i}/${shards}`,
        "--summary", path.join(s.summaries, `summary-${i}.json`)],
    }));
    job.addTask(task);
    bakes.push(task);
  }
  const summaries = [];
  for (let i = 0; i < shards; i++) {
    summaries.push(path.join(s.summaries, `summary-${i}.json`));
  }
  const merge = author.Task("merge", "misc");
  merge.addCommand(author.Command("exec", {
    exe: s.drape,
    args: ["report", "merge"].concat(summaries, [
      "-o", path.join(s.summaries, "report.json"),
      "--markdown", path.join(s.summaries, "report.md")]),
  }));
  for (const t of bakes) {
    merge.addDependency(t);
  }
  job.addTask(merge);
}
