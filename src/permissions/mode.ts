/** The four permission modes (D24), the one `PermissionMode` type every layer uses. */
export const PERMISSION_MODES = ["default", "accept-edits", "readonly", "bypass"] as const;

export type PermissionMode = (typeof PERMISSION_MODES)[number];
