import { Either } from "effect"

/**
 * A Google Business Profile local post from the post's settings (developers.google.com/my-business,
 * "accounts.locations.localPosts"): standard, event or offer, a call to action, one photo or
 * video by address. What Google would refuse for sure is said here, before anything is sent.
 */

const ACTIONS: Readonly<Record<string, string>> = {
  book: "BOOK",
  order: "ORDER",
  shop: "SHOP",
  learn_more: "LEARN_MORE",
  sign_up: "SIGN_UP",
  call: "CALL"
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** An ISO date (and time) as Google's Date and TimeOfDay. */
const dateParts = (value: string) => {
  const d = new Date(value)
  if (Number.isNaN(d.getTime())) return undefined
  return {
    date: { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
    time: { hours: d.getUTCHours(), minutes: d.getUTCMinutes(), seconds: 0, nanos: 0 }
  }
}

export interface Refusal {
  readonly message: string
  readonly fix: string
}

/** The localPost body, or why Google would refuse it. */
export const localPostOf = (
  summary: string,
  settings: Readonly<Record<string, unknown>>,
  media: ReadonlyArray<{ readonly url: string; readonly video: boolean }>
): Either.Either<Record<string, unknown>, Refusal> => {
  const topic = (text(settings["topicType"]) ?? "standard").toUpperCase()
  if (!["STANDARD", "EVENT", "OFFER"].includes(topic))
    return Either.left({ message: `The post type ${topic} is not one Google takes.`, fix: "Set topicType to standard, event or offer." })
  const body: Record<string, unknown> = { languageCode: text(settings["language"]) ?? "en", summary, topicType: topic }
  const action = text(settings["callToAction"])?.toLowerCase()
  if (action !== undefined && action !== "none") {
    const actionType = ACTIONS[action]
    if (actionType === undefined)
      return Either.left({
        message: `The call to action ${action} is not one Google takes.`,
        fix: "Choose book, order, shop, learn_more, sign_up or call."
      })
    const url = text(settings["callToActionUrl"])
    if (actionType !== "CALL" && url === undefined)
      return Either.left({ message: `The call to action ${action} needs an address.`, fix: "Set callToActionUrl, then retry." })
    body["callToAction"] = { actionType, ...(actionType === "CALL" || url === undefined ? {} : { url }) }
  }
  if (topic !== "STANDARD") {
    // an offer is an event too: both need a title and a schedule
    const title = text(settings["eventTitle"])
    const start = dateParts(text(settings["eventStart"]) ?? "")
    const end = dateParts(text(settings["eventEnd"]) ?? "")
    if (title === undefined || start === undefined || end === undefined)
      return Either.left({
        message: `A Google ${topic.toLowerCase()} post needs a title, a start and an end.`,
        fix: "Set eventTitle, eventStart and eventEnd (ISO dates), then retry."
      })
    body["event"] = { title, schedule: { startDate: start.date, startTime: start.time, endDate: end.date, endTime: end.time } }
    if (topic === "OFFER") {
      const coupon = text(settings["offerCouponCode"])
      const redeem = text(settings["offerRedeemUrl"])
      const terms = text(settings["offerTerms"])
      body["offer"] = {
        ...(coupon === undefined ? {} : { couponCode: coupon }),
        ...(redeem === undefined ? {} : { redeemOnlineUrl: redeem }),
        ...(terms === undefined ? {} : { termsConditions: terms })
      }
    }
  }
  if (media.length > 0) body["media"] = media.slice(0, 1).map((m) => ({ mediaFormat: m.video ? "VIDEO" : "PHOTO", sourceUrl: m.url }))
  return Either.right(body)
}
