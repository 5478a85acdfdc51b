/**
 * Envelope (tool-call list) command preflight, exactly D12, with words split as bash quotes them.
 * Pure: the verdict depends only on the command string and `absolutePaths`, never on the host.
 * The detail names the rule, never the command text (it ends up in failure lines and records, SEC-08).
 */
import { lexShell, wordRaw, wordValue } from "../../util/shell-words.ts";

export type PreflightRule = "$" | "~" | "`" | "{" | "}" | "control character" | "cd" | ".." | "absolute path";

export type PreflightResult = { ok: true } | { ok: false; rule: PreflightRule; detail: string };

const FORBIDDEN_CHARS: ReadonlyMap<string, PreflightRule> = new Map<string, PreflightRule>([
  ["$", "$"],
  ["~", "~"],
  ["`", "`"],
  ["{", "{"],
  ["}", "}"],
]);
const DRIVE_ABSOLUTE = /^[A-Za-z]:[\\/]/;

function reject(rule: PreflightRule): PreflightResult {
  const detail =
    rule === "cd"
      ? "cd is not allowed"
      : rule === "control character"
        ? "control character is not allowed"
        : rule === "absolute path"
          ? "absolute path is not allowed"
          : `"${rule}" is not allowed`;
  return { ok: false, rule, detail };
}

/**
 * D12 step 2 with bash's quoting (src/util/shell-words.ts): each word as D12's W (quotes removed,
 * backslash escapes kept as written) and as the word bash actually builds. Splitting as bash
 * quotes matters: `x\'` is a word holding a literal quote, not the start of a quoted run that
 * would hide `; cd ..` from the checks.
 */
export function splitWords(command: string): { raw: string; value: string }[] {
  const words: { raw: string; value: string }[] = [];
  for (const token of lexShell(command)) if (token.kind === "word") words.push({ raw: wordRaw(token.parts), value: wordValue(token.parts) });
  return words;
}

/** W′ of D12: every `\x` becomes `x`. */
function unescape(word: string): string {
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    if (ch === "\\" && i + 1 < word.length) {
      out += word[i + 1]!;
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The word itself and each suffix that follows an `=` in it. */
function pieces(word: string): string[] {
  const out = [word];
  for (let i = word.indexOf("="); i !== -1; i = word.indexOf("=", i + 1)) out.push(word.slice(i + 1));
  return out;
}

function hasDotDotComponent(piece: string): boolean {
  return piece.split(/[\\/]/).some((component) => component === "..");
}

function isAbsolutePiece(piece: string): boolean {
  return piece.startsWith("/") || piece.startsWith("\\") || DRIVE_ABSOLUTE.test(piece);
}

/** Shells whose `-c` operand is a command string (by the program word's last path component). */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"]);
/** An option cluster holding `c` (`-c`, `-lc`, `-ec`): the next non-option word is code. */
const SHELL_C_OPTION = /^-[A-Za-z]*c[A-Za-z]*$/;
/** How deep code inside code (`sh -c "eval …"`) is followed; deeper is rejected as a `cd` risk. */
const NESTED_DEPTH = 4;

/**
 * The strings bash will parse again as commands: the joined operands of `eval` and the `-c`
 * operand of a shell, per simple command (`eval c\\d ..` runs `cd ..`, and
 * `sh -c "cd .."` hides its `cd` inside one quoted word).
 */
function nestedCode(command: string): string[] {
  const out: string[] = [];
  let segment: string[] = [];
  const finish = (): void => {
    const words = segment;
    segment = [];
    for (let i = 0; i < words.length; i++) {
      const program = words[i]!;
      if (program === "eval") {
        out.push(words.slice(i + 1).join(" "));
        return;
      }
      if (!SHELLS.has(program.slice(program.lastIndexOf("/") + 1))) continue;
      let code = false;
      for (const word of words.slice(i + 1)) {
        if (code && !word.startsWith("-")) {
          out.push(word);
          return;
        }
        if (SHELL_C_OPTION.test(word)) code = true;
      }
    }
  };
  for (const token of lexShell(command)) {
    if (token.kind === "word") segment.push(wordValue(token.parts));
    else if (token.text !== "<" && token.text !== ">") finish();
  }
  finish();
  return out;
}

/** Never throws. `absolutePaths` is the effective `tools.bash.absolute_paths` (default true). */
export function preflight(command: string, options: { absolutePaths: boolean }, depth = 0): PreflightResult {
  for (const ch of command) {
    const forbidden = FORBIDDEN_CHARS.get(ch);
    if (forbidden !== undefined) return reject(forbidden);
    const code = ch.codePointAt(0)!;
    if (code < 0x20 && code !== 0x09) return reject("control character");
  }
  for (const { raw, value } of splitWords(command)) {
    // W, W′ (D12) and the word bash runs: a rule that holds for any of them rejects.
    const forms = [raw, unescape(raw), value];
    if (forms.includes("cd")) return reject("cd");
    for (const form of forms) {
      if (pieces(form).some(hasDotDotComponent)) return reject("..");
    }
    if (!options.absolutePaths && [raw, value].some((form) => pieces(form).some(isAbsolutePiece))) return reject("absolute path");
  }
  for (const code of nestedCode(command)) {
    if (depth >= NESTED_DEPTH) return reject("cd");
    const nested = preflight(code, options, depth + 1);
    if (!nested.ok) return nested;
  }
  return { ok: true };
}
