/**
 * A bash command string as the simple commands bash would run, for the permission gate. Quoting
 * follows bash exactly (the same rules as shell-words.ts); structure follows bash where it decides
 * what runs: `;`, `&`, `&&`, `|`, `||`, `|&` and newlines separate commands, `( … )` and `{ … }`
 * group them, and command substitutions (`$( … )`, backticks, `<( … )`, `>( … )`) are commands of
 * their own, found inside words and double quotes alike. `sh -c STR`, `bash -c STR` and `eval` are
 * read again as commands; `xargs CMD` and `find … -exec CMD ;` name the command they run.
 *
 * The reader never executes anything and never guesses: whatever it cannot settle statically (a
 * here-document, a loop or `case`, a function definition, arithmetic, a command word that is itself
 * an expansion) makes the analysis `complete: false`, and the gate then asks instead of allowing.
 * Every command it did see is still listed, so a deny rule holds for them. One pass per nesting
 * level, linear in the input.
 */

/** The word after a redirection operator: the file a command reads or writes. */
export interface RedirectTarget {
  /** The word after quote removal (an expansion shows as `$`, `$(…)` or the glob as written). */
  readonly text: string;
  /** True when the word holds an expansion, so `text` is not the path bash would open. */
  readonly expands: boolean;
  /** `>`, `>>`, `>|`, `&>`, `<>`: the file is written (created or truncated); `<`: only read. */
  readonly write: boolean;
}

export interface SimpleCommand {
  /** The words after quote removal, prefix assignments and redirections removed. */
  readonly words: readonly string[];
  /** For each of `words`: whether it holds an expansion (its text is not what the command gets). */
  readonly expanding: readonly boolean[];
  /** Its redirections to and from files, `/dev/null` included; here-strings, here-documents and descriptor copies are none. */
  readonly targets: readonly RedirectTarget[];
  /** Set for a command named by `xargs CMD` or `find -exec CMD`: its further arguments come from input or from what find found. */
  readonly via?: "xargs" | "find";
  /** `NAME=value` words before the command word. */
  readonly assignments: readonly string[];
  /**
   * True when the command redirects to or from a file (`>`, `<`, `>>`, `&>`, here-strings, process
   * substitutions); `/dev/null` and descriptor copies such as `2>&1` do not count.
   */
  readonly redirects: boolean;
  /** True when a word holds an expansion (`$X`, `${X}`, `$(…)`, backticks, a glob, `~`). */
  readonly expands: boolean;
  /** True when a word holds a command substitution (its commands are listed separately). */
  readonly substitutes: boolean;
}

export interface CommandAnalysis {
  /** Every simple command found, nested ones included, in reading order. */
  readonly commands: readonly SimpleCommand[];
  /** False when something could not be decided statically; the reasons say what. */
  readonly complete: boolean;
  readonly reasons: readonly string[];
}

/** Wrappers that run their arguments as a command (the deny view strips them). */
const WRAPPERS: ReadonlySet<string> = new Set(["command", "builtin", "exec", "env", "nohup", "time", "nice", "stdbuf", "timeout"]);
/** Keywords after which a new command starts. */
const LEADING_KEYWORDS: ReadonlySet<string> = new Set(["!", "if", "then", "elif", "else", "while", "until", "do", "{"]);
/** Keywords that end a compound command and run nothing themselves. */
const CLOSING_KEYWORDS: ReadonlySet<string> = new Set(["fi", "done", "}", "esac"]);
/** Compound commands whose structure this reader does not follow. */
const UNDECIDABLE_KEYWORDS: ReadonlySet<string> = new Set(["for", "case", "select", "function", "[[", "((", "coproc"]);
const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const MAX_DEPTH = 8;
/** A run of characters with no meaning to bash's reader, appended to the word in one step. */
const PLAIN_RUN = /[^\s\\'"$`#;&|()<>*?[~]+/y;
const BLANK = /\s/;
const DIGITS = /^[0-9]+$/;

interface Word {
  text: string;
  expands: boolean;
  substitutes: boolean;
}

interface Collector {
  readonly commands: SimpleCommand[];
  readonly reasons: string[];
  depth: number;
}

/** Reads `command` into its simple commands. Never throws. */
export function analyzeCommand(command: string): CommandAnalysis {
  const collector: Collector = { commands: [], reasons: [], depth: 0 };
  readList(command, collector);
  return { commands: collector.commands, complete: collector.reasons.length === 0, reasons: collector.reasons };
}

function undecided(c: Collector, reason: string): void {
  if (!c.reasons.includes(reason)) c.reasons.push(reason);
}

/** Reads a whole command list (the top level, or the inside of a substitution). */
function readList(text: string, c: Collector): void {
  if (c.depth >= MAX_DEPTH) return undecided(c, "commands nested too deeply");
  c.depth++;
  new Reader(text, c).run();
  c.depth--;
}

class Reader {
  private i = 0;
  private words: Word[] = [];
  private redirects = false;
  private targets: RedirectTarget[] = [];
  private pendingRedirect = false;
  /** What the pending redirection does with its file: write, read, or nothing (a here-string or here-document word). */
  private pendingKind: "write" | "read" | "none" = "none";
  private current: Word | null = null;

  constructor(
    private readonly text: string,
    private readonly c: Collector,
  ) {}

  run(): void {
    const n = this.text.length;
    while (this.i < n) this.step();
    this.endCommand();
  }

  private word(): Word {
    if (this.current === null) this.current = { text: "", expands: false, substitutes: false };
    return this.current;
  }

  private endWord(): void {
    const word = this.current;
    if (word === null) return;
    this.current = null;
    if (this.pendingRedirect) {
      this.pendingRedirect = false;
      if (word.text !== "/dev/null" || word.expands) this.redirects = true;
      if (this.pendingKind !== "none") this.targets.push({ text: word.text, expands: word.expands, write: this.pendingKind === "write" });
      return;
    }
    this.words.push(word);
  }

  private endCommand(): void {
    this.endWord();
    if (this.pendingRedirect) undecided(this.c, "a redirection without a target");
    this.pendingRedirect = false;
    const words = this.words;
    const redirects = this.redirects;
    const targets = this.targets;
    this.words = [];
    this.redirects = false;
    this.targets = [];
    if (words.length > 0) emitCommand(words, { redirects, targets }, this.c);
    else if (targets.length > 0) emitCommand([{ text: ":", expands: false, substitutes: false }], { redirects, targets }, this.c);
  }

  private step(): void {
    const t = this.text;
    PLAIN_RUN.lastIndex = this.i;
    if (PLAIN_RUN.test(t)) {
      this.word().text += t.slice(this.i, PLAIN_RUN.lastIndex);
      this.i = PLAIN_RUN.lastIndex;
      return;
    }
    const ch = t[this.i] ?? "";
    if (ch === "\\") return this.escape();
    if (ch === "'") return this.single();
    if (ch === '"') return this.double(this.i + 1);
    if (ch === "$") return this.dollar(false);
    if (ch === "`") return this.backtick(false);
    if (ch === "#" && this.current === null) return this.comment();
    if (ch === "\n" || ch === ";" || ch === "&" || ch === "|") return this.separator(ch);
    if (BLANK.test(ch)) {
      this.endWord();
      this.i++;
      return;
    }
    if (ch === "(" || ch === ")") return this.paren(ch);
    if (ch === "<" || ch === ">") return this.redirect(ch);
    const word = this.word();
    if ("*?[".includes(ch) || (ch === "~" && word.text === "")) word.expands = true;
    word.text += ch;
    this.i++;
  }

  private escape(): void {
    const next = this.text[this.i + 1];
    if (next === "\n") {
      this.i += 2;
      return;
    }
    this.word().text += next ?? "\\";
    this.i += next === undefined ? 1 : 2;
  }

  private single(): void {
    const end = this.text.indexOf("'", this.i + 1);
    const stop = end < 0 ? this.text.length : end;
    this.word().text += this.text.slice(this.i + 1, stop);
    this.i = stop + 1;
  }

  /** `"…"`: backslash escapes `$ \` " \\` and newline; `$…` and backticks expand inside. */
  private double(from: number): void {
    const word = this.word();
    const t = this.text;
    this.i = from;
    while (this.i < t.length && t[this.i] !== '"') {
      const ch = t[this.i] ?? "";
      const next = t[this.i + 1];
      if (ch === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== "\n") word.text += next;
        this.i += 2;
      } else if (ch === "$") this.dollar(true);
      else if (ch === "`") this.backtick(true);
      else {
        word.text += ch;
        this.i++;
      }
    }
    this.i++;
  }

  private dollar(quoted: boolean): void {
    const t = this.text;
    const next = t[this.i + 1] ?? "";
    const word = this.word();
    if (next === "(" && t[this.i + 2] === "(") {
      undecided(this.c, "arithmetic expansion");
      word.expands = true;
      this.i = skipBalanced(t, this.i + 1, "(", ")");
      return;
    }
    if (next === "(") return this.substitution(this.i + 2);
    if (next === "{") {
      word.expands = true;
      const end = skipBalanced(t, this.i + 1, "{", "}");
      const inner = t.slice(this.i + 2, end - 1);
      // `${X:-$(cmd)}` runs cmd: read what the parameter expansion holds as well.
      if (inner.includes("$(") || inner.includes("`")) {
        word.substitutes = true;
        readList(inner.replace(/^[^$`]*/, ""), this.c);
        undecided(this.c, "a command substitution inside ${…}");
      }
      word.text += "$";
      this.i = end;
      return;
    }
    if (!quoted && next === "'") return this.ansi();
    if (!quoted && next === '"') return this.double(this.i + 2);
    if (/[A-Za-z_0-9@*#?$!-]/.test(next)) {
      word.expands = true;
      word.text += "$";
      this.i += 2;
      while (/[A-Za-z_0-9]/.test(t[this.i] ?? "") && /[A-Za-z_]/.test(next)) this.i++;
      return;
    }
    word.text += "$";
    this.i++;
  }

  /** `$'…'`: ANSI-C quoting; its text is literal, decoded loosely (the gate only needs words). */
  private ansi(): void {
    const t = this.text;
    let j = this.i + 2;
    let text = "";
    while (j < t.length && t[j] !== "'") {
      if (t[j] === "\\" && j + 1 < t.length) {
        const e = t[j + 1] ?? "";
        text += e === "n" ? "\n" : e === "t" ? "\t" : e === "'" || e === "\\" || e === '"' ? e : `\\${e}`;
        if (e === "x" || /[0-7]/.test(e)) undecided(this.c, "a numeric escape in $'…'");
        j += 2;
      } else text += t[j++];
    }
    this.word().text += text;
    this.i = j + 1;
  }

  /** `$( … )` starting after `(` at `from`: its commands are read as commands of their own. */
  private substitution(from: number): void {
    const end = findClosingParen(this.text, from);
    const word = this.word();
    word.expands = true;
    word.substitutes = true;
    word.text += "$(…)";
    readList(this.text.slice(from, end), this.c);
    this.i = end + 1;
  }

  private backtick(quoted: boolean): void {
    const t = this.text;
    let j = this.i + 1;
    let inner = "";
    while (j < t.length && t[j] !== "`") {
      if (t[j] === "\\" && j + 1 < t.length && "$`\\".includes(t[j + 1] ?? "")) {
        inner += t[j + 1];
        j += 2;
      } else inner += t[j++];
    }
    if (quoted && inner.includes('"')) undecided(this.c, "quotes inside a quoted backtick substitution");
    const word = this.word();
    word.expands = true;
    word.substitutes = true;
    word.text += "`…`";
    readList(inner, this.c);
    this.i = j + 1;
  }

  private comment(): void {
    const end = this.text.indexOf("\n", this.i);
    this.i = end < 0 ? this.text.length : end;
  }

  private separator(ch: string): void {
    const t = this.text;
    // `>&`, `&>` and `|&` belong to redirections and pipes, handled as one operator.
    if (ch === "&" && t[this.i + 1] === ">") return this.redirect("&");
    this.endCommand();
    this.i++;
    if ((ch === "&" || ch === "|") && (t[this.i] === ch || (ch === "|" && t[this.i] === "&"))) this.i++;
    if (ch === ";" && t[this.i] === ";") undecided(this.c, "a case clause");
  }

  private paren(ch: string): void {
    if (ch === "(" && this.current !== null) {
      // `name()` starts a function definition, `arr=(…)` an array: neither is followed here.
      undecided(this.c, this.current.text.includes("=") ? "an array assignment" : "a function definition");
    }
    this.endCommand();
    this.i++;
  }

  private redirect(ch: string): void {
    const t = this.text;
    const fd = this.current !== null && DIGITS.test(this.current.text) && !this.current.expands;
    if (fd) this.current = null;
    else this.endWord();
    let j = this.i + 1;
    if (ch === "&") j++; // `&>`
    if ((ch === "<" || ch === ">") && t[j] === "(") {
      // `<( … )` and `>( … )`: a process substitution is a command of its own.
      const end = findClosingParen(t, j + 1);
      readList(t.slice(j + 1, end), this.c);
      this.redirects = true;
      this.word().text += "<(…)";
      const word = this.word();
      word.expands = true;
      word.substitutes = true;
      this.i = end + 1;
      return;
    }
    this.pendingKind = ch === "<" ? "read" : "write";
    if (ch === "<" && t[j] === "<") {
      if (t[j + 1] !== "<") return this.heredoc();
      j += 2;
      this.redirects = true; // a here-string feeds text, but the command still reads it
      this.pendingKind = "none";
    } else if (t[j] === ch || t[j] === "&" || t[j] === "|") j++;
    this.i = j;
    // `2>&1`, `>&-`: the target is a descriptor, not a word to drop.
    if (t[j - 1] === "&" && /[0-9-]/.test(t[j] ?? "")) {
      while (/[0-9-]/.test(t[this.i] ?? "")) this.i++;
      return;
    }
    this.pendingRedirect = true;
  }

  private heredoc(): void {
    undecided(this.c, "a here-document");
    this.redirects = true;
    // Its body lines are not commands, but reading them as such only adds commands for deny rules.
    this.i += 2;
    this.pendingRedirect = true;
    this.pendingKind = "none";
  }
}

/** Index after the `close` that balances the `open` at `at`; the end of the text when missing. */
function skipBalanced(text: string, at: number, open: string, close: string): number {
  let depth = 0;
  for (let j = at; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === open) depth++;
    else if (text[j] === close && --depth === 0) return j + 1;
  }
  return text.length;
}

/** Index of the `)` that closes a substitution whose body starts at `from`, skipping quotes. */
function findClosingParen(text: string, from: number): number {
  let depth = 1;
  for (let j = from; j < text.length; j++) {
    const ch = text[j];
    if (ch === "\\") j++;
    else if (ch === "'") {
      const end = text.indexOf("'", j + 1);
      j = end < 0 ? text.length : end;
    } else if (ch === '"') {
      for (j++; j < text.length && text[j] !== '"'; j++) if (text[j] === "\\") j++;
    } else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return j;
  }
  return text.length;
}

function emitCommand(all: readonly Word[], files: { redirects: boolean; targets: readonly RedirectTarget[] }, c: Collector): void {
  let start = 0;
  while (start < all.length && LEADING_KEYWORDS.has(all[start]?.text ?? "") && !all[start]?.expands) start++;
  const first = all[start];
  if (first === undefined) return;
  if (CLOSING_KEYWORDS.has(first.text) && all.length - start === 1) return;
  if (UNDECIDABLE_KEYWORDS.has(first.text)) undecided(c, `a \`${first.text}\` compound command`);
  const assignments: string[] = [];
  let at = start;
  while (at < all.length && ASSIGNMENT.test(all[at]?.text ?? "")) assignments.push(all[at++]?.text ?? "");
  const words = all.slice(at);
  const command: SimpleCommand = {
    words: words.map((word) => word.text),
    expanding: words.map((word) => word.expands),
    targets: files.targets,
    assignments,
    redirects: files.redirects,
    expands: all.some((word) => word.expands),
    substitutes: all.some((word) => word.substitutes),
  };
  if (words[0]?.expands) undecided(c, "a command name that is an expansion");
  c.commands.push(command);
  readNestedCommands(command, c);
}

/** `sh -c STR`, `eval …`, `xargs CMD`, `find … -exec CMD ;`: the commands they run. */
function readNestedCommands(command: SimpleCommand, c: Collector): void {
  const words = stripWrappers(command.words);
  const name = commandName(words[0] ?? "");
  if (SHELLS.has(name)) {
    const flag = words.findIndex((word, index) => index > 0 && /^-[a-z]*c[a-z]*$/.test(word));
    const script = flag > 0 ? words[flag + 1] : undefined;
    if (script !== undefined) readList(script, c);
    else if (words.length > 1) undecided(c, `${name} runs a script file`);
    else undecided(c, `${name} reads commands from its input`);
  } else if (name === "eval") {
    readList(words.slice(1).join(" "), c);
  } else if (name === "xargs") {
    const rest = words.slice(1);
    const at = rest.findIndex((word) => !word.startsWith("-"));
    if (rest.some((word) => /^-[^-]*[IiELPsda]$|^--/.test(word))) undecided(c, "xargs options that take values");
    pushDerived(at < 0 ? ["echo"] : rest.slice(at), "xargs", c);
  } else if (name === "find") {
    for (let j = 1; j < words.length; j++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(words[j] ?? "")) continue;
      const end = words.findIndex((word, index) => index > j && (word === ";" || word === "+"));
      pushDerived(words.slice(j + 1, end < 0 ? words.length : end), "find", c);
    }
  }
}

function pushDerived(words: readonly string[], via: "xargs" | "find", c: Collector): void {
  if (words.length === 0) return;
  const command: SimpleCommand = {
    words,
    expanding: words.map(() => false),
    targets: [],
    via,
    assignments: [],
    redirects: false,
    expands: false,
    substitutes: false,
  };
  c.commands.push(command);
  readNestedCommands(command, c);
}

/** The command word's last path component: `/bin/rm` and `./rm` run an `rm`. */
export function commandName(word: string): string {
  const slash = Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\"));
  return slash < 0 ? word : word.slice(slash + 1);
}

/**
 * The words after `command`, `builtin`, `exec`, `env` (its options and assignments), `nohup`, `time`,
 * `nice`, `stdbuf` and `timeout` prefixes, so a deny rule sees the command they run.
 */
export function stripWrappers(words: readonly string[]): readonly string[] {
  let rest = words;
  for (let guard = 0; guard < 16 && rest.length > 0; guard++) {
    const name = commandName(rest[0] ?? "");
    if (!WRAPPERS.has(name)) break;
    let at = 1;
    if (name === "timeout") {
      while (at < rest.length && (rest[at] ?? "").startsWith("-")) at++;
      at++; // the duration
    } else {
      while (at < rest.length && ((rest[at] ?? "").startsWith("-") || (name === "env" && ASSIGNMENT.test(rest[at] ?? "")))) {
        const option = rest[at] ?? "";
        at += name === "env" && (option === "-u" || option === "-C" || option === "-S") ? 2 : name === "nice" && option === "-n" ? 2 : 1;
      }
    }
    rest = rest.slice(at);
  }
  return rest;
}
