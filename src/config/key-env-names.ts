/**
 * The variable names the user's own config names as provider keys (`api_key_env`, top level or
 * under `providers.<name>`), read before anything else runs so `main.ts` can hand those variables
 * over with the other credentials and drop them from the agent's initial environment (item
 * 6): a key in `LLM_CRED` looks like nothing, so only the config says it is one. User scope only —
 * a project never chooses which variable is a key (api_key_env is user-only). Never throws: a file
 * that does not parse names nothing here, and the real load reports it.
 */
import type { FileSystem } from "../runtime/types.ts";
import { joinPath } from "../util/path-utils.ts";
import { parseJson, parseToml } from "./parse.ts";
import { isRecord } from "../util/records.ts";
import { agentHomeDir } from "./paths.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function namesIn(data: unknown): string[] {
  if (!isRecord(data)) return [];
  const out: string[] = [];
  const take = (value: unknown): void => {
    if (typeof value === "string" && ENV_NAME.test(value)) out.push(value);
  };
  take(data.api_key_env);
  if (isRecord(data.providers)) for (const provider of Object.values(data.providers)) if (isRecord(provider)) take(provider.api_key_env);
  return out;
}

export function userKeyEnvNames(fs: Pick<FileSystem, "readText">, env: Readonly<Record<string, string>>, homedir: string, cwd: string): string[] {
  const home = agentHomeDir(env, homedir, cwd);
  const names = new Set<string>();
  const toml = fs.readText(joinPath(home, "config.toml"));
  if (toml !== undefined) {
    const parsed = parseToml(toml);
    if (parsed.ok) for (const name of namesIn(parsed.value)) names.add(name);
  }
  const json = fs.readText(joinPath(home, "settings.json"));
  if (json !== undefined) {
    const parsed = parseJson(json);
    if (parsed.ok) for (const name of namesIn(parsed.value)) names.add(name);
  }
  return [...names];
}
