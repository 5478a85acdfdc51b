/**
 * A permission rule change a hook or the approval prompt asks for (`updatedPermissions` in claude
 * replies, LIFE-28). Defined here, by the layer that applies it; the claude dialect decodes into it.
 */
export interface PermissionRuleUpdate {
  readonly type: string;
  readonly rules: readonly { readonly toolName: string; readonly ruleContent?: string }[];
  readonly behavior: "allow" | "deny" | "ask";
  readonly destination: "session" | "projectSettings" | "userSettings" | "localSettings";
}
