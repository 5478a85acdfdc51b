/**
 * Expands `${NAME}` from `env`. A missing variable is an error value naming it, so a server is never
 * started (or a header sent) with a silently empty secret.
 */
export function expandEnvRefs(text: string, env: Readonly<Record<string, string>>): { ok: true; value: string } | { ok: false; missing: string } {
  let missing: string | undefined;
  const value = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, key: string) => {
    const found = env[key];
    if (found === undefined) missing ??= key;
    return found ?? "";
  });
  return missing === undefined ? { ok: true, value } : { ok: false, missing };
}
