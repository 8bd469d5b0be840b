/**
 * Top-level domains that make a bare word like `example.com` a link on X.
 * X links bare domains only when the ending is a real top-level domain, so
 * `file.txt` or `node.js` stay plain text. All two-letter country domains are
 * here; of the generic ones only the common ones (a post using a rare one is
 * counted a little short, never refused by mistake).
 */
const generic = [
  "com",
  "net",
  "org",
  "edu",
  "gov",
  "mil",
  "int",
  "info",
  "biz",
  "name",
  "pro",
  "mobi",
  "app",
  "dev",
  "xyz",
  "online",
  "site",
  "tech",
  "store",
  "shop",
  "blog",
  "news",
  "live",
  "club",
  "page",
  "link",
  "social",
  "world",
  "space",
  "website",
  "cloud",
  "email",
  "art",
  "design",
  "agency",
  "media",
  "studio",
  "games",
  "fun",
  "top",
  "icu",
  "vip",
  "work",
  "today",
  "zone",
  "network",
  "digital",
  "solutions",
  "group",
  "company",
  "life",
  "center",
  "one",
  "land",
  "wiki",
  "codes",
  "software",
  "systems",
  "academy",
  "events",
  "photo",
  "travel",
  "video",
  "music",
  "money",
  "finance",
  "health",
  "community",
  "download"
]

const country = (
  "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo " +
  "br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm " +
  "do dz ec ee eg er es et eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs " +
  "gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km " +
  "kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp " +
  "mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk " +
  "pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss " +
  "st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va " +
  "vc ve vg vi vn vu wf ws ye yt za zm zw"
).split(" ")

/** Longest first, so a regex alternation prefers `com` over `co`. */
export const topLevelDomains: ReadonlyArray<string> = [...generic, ...country].sort((a, b) => b.length - a.length)
