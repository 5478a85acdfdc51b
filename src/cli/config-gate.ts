/**
 * A settings file that does not parse holds rules nobody can see (a trailing comma would silently
 * drop every `permissions.deny`), so `agent run`, the interactive session, `agent hooks test` and
 * `agent notify` refuse to start on one, before any hook or provider request, with the same
 * `file:line:col` line `agent hooks validate` prints. Checked even with hooks off: the user
 * file's permissions and provider settings apply then too.
 */
import { locateConfig } from "../config/paths.ts";
import { readSettingsFile } from "../config/settings.ts";
import { readManagedFiles } from "../config/managed.ts";
import { formatWarning, WarningSink } from "../config/warnings.ts";
import { AgentError } from "../util/errors.ts";
import type { Runtime } from "../runtime/types.ts";

/**
 * Throws AgentError("config") naming every settings file that cannot be read, parsed, or is not an
 * object, and every managed policy file refused by its owner check (src/config/managed.ts).
 */
export function requireParsableConfig(runtime: Runtime, cwd: string): void {
  const env = runtime.env();
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd });
  const sink = new WarningSink();
  const parsed = [...readManagedFiles(runtime, sink), ...location.files.map((file) => readSettingsFile(runtime.fs, file, sink))];
  const broken = parsed.filter((file) => file.present && file.data === undefined);
  if (broken.length === 0) return;
  const places = { projectRoot: location.projectRoot, userHome: location.userHome };
  const lines = sink.items
    .filter((item) => item.field === "" && broken.some((file) => file.file.path === item.file))
    .map((item) => formatWarning(item, places));
  const more = lines
    .slice(1)
    .map((line) => `\nagent: ${line}`)
    .join("");
  throw new AgentError("config", `${lines[0] ?? "a settings file does not parse"}${more}`, {
    fix: "fix that file and run again — nothing ran: a config that does not parse would lose its permission rules; agent hooks validate checks every file",
  });
}

/** `--provider script` (flag or setting) without `--script` is bad usage (exit 2), caught before anything runs. */
export function requireScriptFile(configured: string | undefined, flags: { provider: string | undefined; script: string | undefined }): void {
  const name = flags.provider ?? (flags.script !== undefined ? "script" : configured);
  if (name === "script" && flags.script === undefined)
    throw new AgentError("usage", "the script provider needs --script FILE", { fix: "e.g. --provider script --script script.json" });
}
