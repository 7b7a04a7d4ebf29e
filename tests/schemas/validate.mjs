// Checks a file rooflens wrote for another scheduler against the schema that scheduler holds it to, with that
// schema's own validators from npm (package.json here; nothing is downloaded at run time):
//
//   node validate.mjs kubernetes-job  JOB.yaml       batch/v1 Job: kubernetes-models' validator, generated from the
//                                                    Kubernetes OpenAPI schema, plus the Indexed Job rules below
//   node validate.mjs github-workflow WORKFLOW.yml   GitHub's own workflow parser (@actions/workflow-parser): the
//                                                    workflow schema, expressions, then the conversion GitHub runs
//
// Valid: the document as JSON on stdout (the tests check the fields rooflens relies on), exit 0. Invalid: one error
// per line on stderr, exit 1. Misuse: exit 2.
import { readFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { parseAllDocuments } from "yaml";

// @actions/workflow-parser is published for bundlers: it imports its schema (a .json file) without the `type: "json"`
// import attribute Node requires. This loader hook adds the attribute to .json imports, then the package loads as is.
const addJsonType = `export async function load(url, context, next) {
  if (!url.endsWith(".json")) return next(url, context);
  return next(url, { ...context, importAttributes: { ...context.importAttributes, type: "json" } });
}`;
register("data:text/javascript," + encodeURIComponent(addJsonType));
const { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } = await import("@actions/workflow-parser");

const require = createRequire(import.meta.url);
const { Job } = require("kubernetes-models/batch/v1/Job");

// The one YAML document of the file, read as kubectl reads it (YAML 1.2; a duplicated key is an error).
function readYaml(text) {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (docs.length !== 1) return { errors: [`expected one YAML document, found ${docs.length}`] };
  const errors = [...docs[0].errors, ...docs[0].warnings].map((e) => e.message);
  return { value: docs[0].toJS(), errors };
}

// Rules the API server checks beyond the OpenAPI schema, for the fields rooflens sets; each is stated in the
// field's own description in the schema (kubernetes-models/batch/v1/JobSpec.d.ts, apimachinery's ObjectMeta).
function indexedJobRules(job) {
  const errors = [];
  const spec = job.spec ?? {};
  const pod = spec.template?.spec ?? {};
  const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (!dnsLabel.test(job.metadata?.name ?? "") || job.metadata.name.length > 63)
    errors.push(`metadata.name ${JSON.stringify(job.metadata?.name)}: not a DNS-1123 label of at most 63 characters`);
  if (spec.completionMode === "Indexed" && !(spec.completions >= 1))
    errors.push("spec.completions: an Indexed Job needs completions");
  if (spec.backoffLimitPerIndex !== undefined && spec.completionMode !== "Indexed")
    errors.push("spec.backoffLimitPerIndex: only for completionMode Indexed");
  if (spec.backoffLimitPerIndex !== undefined && pod.restartPolicy !== "Never")
    errors.push("spec.template.spec.restartPolicy: must be Never with backoffLimitPerIndex");
  if (!["Never", "OnFailure"].includes(pod.restartPolicy))
    errors.push("spec.template.spec.restartPolicy: a Job's pods restart Never or OnFailure");
  return errors;
}

function checkKubernetesJob(text) {
  const { value, errors } = readYaml(text);
  if (errors.length) return { errors };
  try {
    new Job(value).validate();
  } catch (e) {
    return { errors: e.message.split("\n") };
  }
  return { value, errors: indexedJobRules(value) };
}

async function checkGithubWorkflow(text, name) {
  const parsed = parseWorkflow({ name, content: text }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length || parsed.value === undefined) return { errors: errors.length ? errors : ["empty workflow"] };
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  const converted = (template.errors ?? []).map((e) => e.Message);
  return { value: readYaml(text).value, errors: converted };
}

const [kind, file] = process.argv.slice(2);
const checks = { "kubernetes-job": checkKubernetesJob, "github-workflow": checkGithubWorkflow };
if (!checks[kind] || !file) {
  console.error("usage: node validate.mjs kubernetes-job|github-workflow FILE");
  process.exit(2);
}
const { value, errors } = await checks[kind](readFileSync(file, "utf8"), file);
if (errors.length) {
  for (const e of errors) console.error(`${file}: ${e}`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(value) + "\n");
