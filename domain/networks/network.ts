/**
 * A social network's rules as data (spec: "Network settings and rules").
 * The adapters that talk to a network live in services/networks; what a post
 * must satisfy to go there lives here.
 */

/** `media` = at least 1 photo or video; `video` = a video. */
export type Needs = null | "media" | "video"

/** How the network counts characters against maxLength. */
export type LengthCounting =
  | "characters" // code points
  | "graphemes" // user-perceived characters (Bluesky)
  | "x-weighted" // X: URLs count 23, CJK and emoji count 2

export type SettingType = "text" | "select" | "toggle" | "date" | "number" | "list"

export interface NetworkSetting {
  readonly key: string
  readonly label: string
  readonly type: SettingType
  readonly options: ReadonlyArray<string>
  readonly help: string
  /** Present (true) only when the setting must be filled. */
  readonly required?: true
}

export interface ToolField {
  readonly key: string
  readonly type: string
  readonly description: string
}

export interface NetworkTool {
  readonly methodName: string
  readonly description: string
  readonly dataSchema: ReadonlyArray<ToolField>
}

export interface Network {
  readonly identifier: string
  readonly name: string
  readonly maxLength: number
  readonly counting: LengthCounting
  readonly needs: Needs
  readonly maxMedia: number
  /** Whether follow-up comments work. */
  readonly comments: boolean
  /** `link`: GET /social answers a sign-in URL; `form`: connected in the app with a form. */
  readonly connect: "link" | "form"
  /** Server keys (environment variable names) the network's sign-in needs. */
  readonly serverKeys: ReadonlyArray<string>
  readonly settings: ReadonlyArray<NetworkSetting>
  readonly tools: ReadonlyArray<NetworkTool>
  /** Plain-text rules shown by GET /rules and GET /integration-settings. */
  readonly rules: string
  /**
   * Why no server can publish to this network (no public posting API): GET /social and
   * the admin CLI answer 400 with it, and GET /networks says `publishes: false`.
   */
  readonly noPublicApi?: string
}
