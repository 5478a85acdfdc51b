/**
 * A CycloneDX 1.5 JSON SBOM from Bun build metafiles: every npm package with a file in the bundle
 * (name, version, licence, purl), the Bun runtime each executable embeds, and the artefacts' hashes.
 * Nothing in it depends on the build machine (no paths, no clock), so it is reproducible too.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface Metafile {
  readonly inputs: Record<string, unknown>;
}

interface Component {
  type: string;
  "bom-ref": string;
  name: string;
  version: string;
  purl: string;
  licenses?: { license: { id: string } }[];
  hashes?: { alg: string; content: string }[];
}

/** `node_modules/@scope/name` or `node_modules/name` of an input path: the package's folder. */
function packageDir(input: string): string | undefined {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, "/"));
  return match?.[1];
}

const purlOf = (name: string, version: string): string => `pkg:npm/${name.replace(/^@/, "%40")}@${version}`;

function npmComponents(metafiles: readonly Metafile[]): Component[] {
  const dirs = new Set<string>();
  for (const meta of metafiles)
    for (const input of Object.keys(meta.inputs)) {
      const dir = packageDir(input);
      if (dir !== undefined) dirs.add(dir);
    }
  const byPurl = new Map<string, Component>();
  for (const dir of dirs) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string; license?: string };
    if (pkg.name === undefined || pkg.version === undefined) continue;
    const purl = purlOf(pkg.name, pkg.version);
    byPurl.set(purl, {
      type: "library",
      "bom-ref": purl,
      name: pkg.name,
      version: pkg.version,
      purl,
      ...(pkg.license ? { licenses: [{ license: { id: pkg.license } }] } : {}),
    });
  }
  return [...byPurl.values()].sort((a, b) => a.purl.localeCompare(b.purl));
}

export function cycloneDx(
  metafiles: readonly Metafile[],
  release: { version: string; date: string; bunVersion: string; artefacts: readonly { name: string; sha256: string }[] },
): Record<string, unknown> {
  const runtime = purlOf("bun", release.bunVersion);
  const components: Component[] = [
    ...npmComponents(metafiles),
    { type: "platform", "bom-ref": runtime, name: "bun", version: release.bunVersion, purl: runtime, licenses: [{ license: { id: "MIT" } }] },
    ...release.artefacts.map((artefact) => ({
      type: "application",
      "bom-ref": `artefact:${artefact.name}`,
      name: artefact.name,
      version: release.version,
      purl: `pkg:generic/agent@${release.version}?file=${artefact.name}`,
      hashes: [{ alg: "SHA-256", content: artefact.sha256 }],
    })),
  ];
  const body = {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: {
      ...(release.date !== "unknown" ? { timestamp: release.date } : {}),
      tools: { components: [{ type: "application", name: "scripts/release.ts" }] },
      component: { type: "application", "bom-ref": "agent", name: "agent", version: release.version },
    },
    components,
    dependencies: [{ ref: "agent", dependsOn: components.filter((c) => c.type !== "application").map((c) => c["bom-ref"]) }],
  };
  // A serial number derived from the content, so two builds of one commit write the same file.
  const hex = createHash("sha256").update(JSON.stringify(body)).digest("hex");
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const { bomFormat, specVersion, ...rest } = body;
  return { bomFormat, specVersion, serialNumber: `urn:uuid:${uuid}`, ...rest };
}
