/**
 * `agent hooks init TEMPLATE`: copies one hook directory of hooks-examples/ into the project's
 * `.agent/hooks/`. The templates are embedded in the executable (src/hooks/templates.ts), so the
 * compiled binary needs nothing from the source tree.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { AgentError } from "../errors.ts";
import { locateConfig } from "../config/paths.ts";
import { HOOK_TEMPLATES } from "../hooks/templates.ts";

export async function runHooksInit(runtime: Runtime, io: CliIO, options: { cwd: string; template: string | undefined }): Promise<number> {
  const names = Object.keys(HOOK_TEMPLATES).sort();
  const template = options.template === undefined ? undefined : HOOK_TEMPLATES[options.template];
  if (template === undefined) {
    throw new AgentError("usage", options.template === undefined ? "missing TEMPLATE" : `unknown template "${options.template}"`, {
      fix: `available templates: ${names.join(", ")}`,
    });
  }
  const root = locateConfig(runtime.fs, { env: runtime.env(), homedir: runtime.platform.homedir, cwd: options.cwd }).projectRoot;
  const target = `${root}/.agent/hooks/${options.template}`;
  if (runtime.fs.lstat(target) !== undefined) {
    throw new AgentError("config", `${target} already exists`, { fix: "remove it first or pick another template; nothing was overwritten" });
  }
  runtime.fs.mkdir(target, { recursive: true });
  for (const file of template.files) {
    runtime.fs.writeText(`${target}/${file.name}`, file.content, { mode: file.executable ? 0o755 : 0o644 });
    runtime.fs.chmod(`${target}/${file.name}`, file.executable ? 0o755 : 0o644);
  }
  io.out(
    `created ${target} (${template.files.map((file) => file.name).join(", ")})\n` +
      `next: review it, then run \`agent hooks trust\` — project hooks never run before the project is trusted\n`,
  );
  return 0;
}
