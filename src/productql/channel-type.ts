/**
 * PostHog's channel type (posthog/hogql/database/schema/channel_type.py `create_channel_type_expr`, documented at
 * posthog.com/docs/data/channel-type): how a session (or a person's first visit) arrived, from its UTM parameters,
 * its click ids and its referring domain. The rules, in order:
 *
 * 1. the campaign contains `cross-network` → Cross Network;
 * 2. a paid visit (medium cpc/cpm/cpv/cpa/ppc/retargeting or starting with `paid`, a `gclid`, or a `gad_source`) →
 *    the paid type of the source, else Paid Shopping for a shopping campaign, else the paid type of the medium, else
 *    the paid type of the referring domain, else Paid Search (`gad_source = '1'`), Paid Video (video campaign),
 *    Paid Social (an `fbclid`), Paid Unknown;
 * 3. referring domain `$direct`, no medium, no source (or `(direct)` / `direct`), no `fbclid` → Direct;
 * 4. otherwise the organic type of the source, else Organic Shopping for a shopping campaign, else the organic type
 *    of the medium, else of the referring domain, else Organic Video (video campaign), Push (medium ending in `push`),
 *    Organic Social (an `fbclid`: Facebook adds it to organic links too, so it is no sign of payment), Direct
 *    (referring domain `$direct`), Referral (any other referring domain), Unknown (none).
 *
 * Source, medium and campaign are compared lowercased, `''` and `'null'` reading as missing (PostHog's
 * `wrap_with_null_if_empty` + `lower`). PostHog looks sources and domains up in a dictionary built from GA4's source
 * categories (search, social, video, shopping) plus a few of its own (email, sms, firebase), trying the value itself
 * and then its first significant subdomain (`www.google.co.uk` → `google.co.uk`); Quarry matches the same lists by
 * regular expressions: a site name matches itself, and as a domain with any subdomains and a one- or two-part TLD
 * (`google`, `google.com`, `news.google.co.uk`); a listed domain matches itself and its subdomains.
 *
 * GA4 also has a Display channel (medium display/banner/…); PostHog's channel types have none, so Quarry has none.
 */
import { and, call, compare, constant, eq, not, or, type Expr } from './ast';

/** The visit fields a custom channel rule's condition can read (PostHog's `CustomChannelField`). */
export const CUSTOM_CHANNEL_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'referring_domain', 'url', 'hostname', 'pathname'] as const;
/** The operators of a custom channel rule's condition (PostHog's `CustomChannelOperator`). */
export const CUSTOM_CHANNEL_OPS = ['exact', 'is_not', 'is_set', 'is_not_set', 'icontains', 'not_icontains', 'regex', 'not_regex'] as const;

/** A condition of a custom channel rule (PostHog's `CustomChannelCondition`): a field of the visit compared to a value. */
export interface CustomChannelCondition {
  key: (typeof CUSTOM_CHANNEL_KEYS)[number];
  op: (typeof CUSTOM_CHANNEL_OPS)[number];
  value?: string | string[] | null;
}

/** PostHog's `CustomChannelRule` (the `customChannelTypeRules` modifier): when its conditions hold, the visit is of `channel_type`. */
export interface CustomChannelRule {
  items: CustomChannelCondition[];
  combiner: 'AND' | 'OR';
  channel_type: string;
}

/** What a custom rule's conditions read: the visit's fields as stored (not lowercased). */
export type CustomChannelFields = Record<CustomChannelCondition['key'], Expr>;

function customConditionExpr(e: Expr, c: CustomChannelCondition): Expr {
  if (c.op === 'is_set') return call('isNotNull', [e]);
  if (c.op === 'is_not_set') return call('isNull', [e]);
  const values = (Array.isArray(c.value) ? c.value : [c.value ?? '']).map(String);
  const one = (v: string): Expr => {
    switch (c.op) {
      case 'exact':
        return eq(e, constant(v));
      case 'is_not':
        return compare('!=', e, constant(v));
      case 'icontains':
        return compare('ilike', e, constant(`%${v}%`));
      case 'not_icontains':
        return compare('not ilike', e, constant(`%${v}%`));
      case 'regex':
        return call('match', [e, constant(v)]);
      default:
        return not(call('match', [e, constant(v)]));
    }
  };
  // a list: any of the values matches (all of them for the negative operators)
  const negative = c.op === 'is_not' || c.op === 'not_icontains' || c.op === 'not_regex';
  return negative ? and(...values.map(one)) : or(...values.map(one));
}

/**
 * The channel type with custom rules (PostHog's `customChannelTypeRules` modifier): the type of the first rule whose
 * conditions hold (all of them for `AND`, one for `OR`), else `otherwise` (the default channel type). A rule without
 * conditions always holds.
 */
export function customChannelTypeExpr(rules: readonly CustomChannelRule[], fields: CustomChannelFields, otherwise: Expr): Expr {
  if (rules.length === 0) return otherwise;
  const cases = rules.map((r): Expr[] => {
    const conditions = r.items.map((c) => customConditionExpr(fields[c.key], c));
    // an unknown NULL (a missing field) is no match
    const holds = call('ifNull', [r.combiner === 'OR' ? or(...conditions) : and(...conditions), constant(false)]);
    return [conditions.length ? holds : constant(true), constant(r.channel_type)];
  });
  return call('multiIf', [...cases.flat(), otherwise]);
}

/** What the channel type is read from: text expressions (`''` or NULL when missing), the click ids as booleans. */
export interface ChannelTypeInputs {
  source: Expr;
  medium: Expr;
  campaign: Expr;
  referringDomain: Expr;
  /** Whether the visit carries a Google Ads click id (`gclid`). */
  hasGclid: Expr;
  /** Whether the visit carries a Facebook click id (`fbclid`). */
  hasFbclid: Expr;
  gadSource: Expr;
}

/** The channel types PostHog classifies into (its `DefaultChannelTypes`). */
export const CHANNEL_TYPES = [
  'Cross Network',
  'Paid Search',
  'Paid Social',
  'Paid Video',
  'Paid Shopping',
  'Paid Unknown',
  'Direct',
  'Organic Search',
  'Organic Social',
  'Organic Video',
  'Organic Shopping',
  'Push',
  'SMS',
  'Audio',
  'Email',
  'Referral',
  'Affiliate',
  'Unknown',
] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

interface SiteList {
  /** Site names: matched as themselves and as `[sub.]name.tld[.tld]`. */
  names: string[];
  /** Domains: matched as themselves and with any subdomain. */
  domains: string[];
}

/** GA4's source categories (as PostHog's channel definitions carry them), by the name and the domains of the sites. */
const SHOPPING: SiteList = {
  names: ['amazon', 'ebay', 'etsy', 'shopify', 'walmart', 'alibaba', 'aliexpress', 'mercadolibre', 'mercadolivre', 'rakuten', 'bestbuy', 'wayfair', 'zalando', 'temu', 'shein', 'flipkart'],
  domains: ['shopping.google.com', 'shopping.yahoo.com', 'igshopping', 'google shopping', 'shop.app'],
};
const SEARCH: SiteList = {
  names: ['google', 'bing', 'yahoo', 'duckduckgo', 'baidu', 'yandex', 'ecosia', 'naver', 'daum', 'ask', 'aol', 'seznam', 'qwant', 'startpage', 'sogou', 'msn', 'kagi', 'dogpile', 'lycos', 'mojeek', 'rambler', 'onet', 'yippy'],
  domains: ['search.brave.com', 'syndicatedsearch.goog', 'so.com', 'search-results.com', 'searchencrypt.com'],
};
const SOCIAL: SiteList = {
  names: ['facebook', 'instagram', 'twitter', 'linkedin', 'reddit', 'pinterest', 'tiktok', 'snapchat', 'whatsapp', 'telegram', 'discord', 'quora', 'tumblr', 'vk', 'weibo', 'wechat', 'threads', 'mastodon', 'producthunt', 'ycombinator', 'meetup', 'xing', 'nextdoor', 'messenger', 'slack', 'kakao', 'line', 'myspace', 'digg', 'stackoverflow', 'stackexchange'],
  domains: ['fb', 'ig', 't.co', 'x.com', 'lnkd.in', 'fb.me', 'm.me', 'bsky.app', 'medium.com', 'news.ycombinator.com'],
};
const VIDEO: SiteList = {
  names: ['youtube', 'vimeo', 'twitch', 'dailymotion', 'wistia', 'youku', 'bilibili', 'rumble', 'iqiyi', 'netflix'],
  domains: ['youtu.be'],
};

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern matching exactly one of `values`. */
const oneOf = (values: string[]): string => `^(?:${values.map(escapeRe).join('|')})$`;

/** One regular expression for a site list (lowercase input). */
export function siteListPattern(list: SiteList): string {
  const names = list.names.map(escapeRe).join('|');
  const domains = list.domains.map(escapeRe).join('|');
  return `^(?:(?:[a-z0-9-]+\\.)*(?:${names})(?:\\.[a-z]{2,3})?\\.[a-z]{2,}|(?:[a-z0-9-]+\\.)*(?:${domains})|(?:${names}))$`;
}

const EMAIL = ['email', 'e-mail', 'e_mail', 'e mail'];

/** Media with their own type whether or not the visit is paid: [mediums, paid type, organic type]. */
const MEDIUM_TYPES: [string[], ChannelType | null, ChannelType][] = [
  [['social', 'social-network', 'social-media', 'sm', 'social network', 'social media'], 'Paid Social', 'Organic Social'],
  [['video'], 'Paid Video', 'Organic Video'],
  [['organic'], null, 'Organic Search'],
  [EMAIL, 'Email', 'Email'],
  [['affiliate'], 'Affiliate', 'Affiliate'],
  [['audio'], 'Audio', 'Audio'],
  [['sms'], 'SMS', 'SMS'],
  [['push', 'mobile', 'notification'], 'Push', 'Push'],
  [['referral', 'app', 'link'], 'Referral', 'Referral'],
];

/** Sources outside GA4's site categories that have a type (PostHog's own channel definitions). */
const SOURCE_TYPES: [string[], ChannelType][] = [
  [EMAIL, 'Email'],
  [['sms'], 'SMS'],
  [['firebase'], 'Push'],
];

/** A missing parameter: `''` (or NULL, read as `''`) or the text `null` (PostHog's `wrap_with_null_if_empty`). */
const MISSING = '^(?:null)?$';
const PAID_MEDIUM = `${oneOf(['cpc', 'cpm', 'cpv', 'cpa', 'ppc', 'retargeting'])}|^paid`;
const DIRECT_SOURCE = oneOf(['', 'null', '(direct)', 'direct']);
const SHOPPING_CAMPAIGN = '^(.*(([^a-df-z]|^)shop|shopping).*)$';
const VIDEO_CAMPAIGN = '^(.*video.*)$';

const str = (s: string | null): Expr => constant(s);
const matches = (e: Expr, re: string): Expr => call('match', [e, str(re)]);
const multiIf = (cases: [Expr, Expr][], otherwise: Expr): Expr => call('multiIf', [...cases.flat(), otherwise]);

/** The type of a source or a referring domain (`paid`: as a paid visit), NULL when it has none. */
function sourceType(value: Expr, paid: boolean): Expr {
  const kind = (what: string): Expr => str(`${paid ? 'Paid' : 'Organic'} ${what}`);
  return multiIf(
    [
      [matches(value, siteListPattern(SHOPPING)), kind('Shopping')],
      [matches(value, siteListPattern(SEARCH)), kind('Search')],
      [matches(value, siteListPattern(SOCIAL)), kind('Social')],
      [matches(value, siteListPattern(VIDEO)), kind('Video')],
      ...SOURCE_TYPES.map(([values, type]): [Expr, Expr] => [matches(value, oneOf(values)), str(type)]),
    ],
    str(null),
  );
}

/** The type of a medium (`paid`: as a paid visit), NULL when it has none. */
function mediumType(medium: Expr, paid: boolean): Expr {
  const cases = MEDIUM_TYPES.filter(([, p]) => !paid || p !== null).map(([values, p, o]): [Expr, Expr] => [matches(medium, oneOf(values)), str(paid ? p : o)]);
  return multiIf(cases, str(null));
}

/**
 * The channel type expression (a string, never NULL) of the inputs. Each input is read several times: pass cheap
 * expressions (a column, or an aggregate the engine computes once however often it is named). Only `match` and
 * `multiIf` compare them: `IN` lists would be planned as joins by DuckDB.
 */
export function channelTypeExpr(inputs: ChannelTypeInputs): Expr {
  const text = (e: Expr): Expr => call('lower', [call('ifNull', [e, str('')])]);
  const source = text(inputs.source);
  const medium = text(inputs.medium);
  const campaign = text(inputs.campaign);
  const domain = text(inputs.referringDomain);
  const gadSource = call('ifNull', [inputs.gadSource, str('')]);
  const isDirectDomain = eq(domain, str('$direct'));
  const shoppingCampaign = (paid: boolean): Expr => call('if', [matches(campaign, SHOPPING_CAMPAIGN), str(paid ? 'Paid Shopping' : 'Organic Shopping'), str(null)]);

  const paid = or(matches(medium, PAID_MEDIUM), inputs.hasGclid, compare('!=', gadSource, str('')));
  const paidType = call('coalesce', [
    sourceType(source, true),
    shoppingCampaign(true),
    mediumType(medium, true),
    sourceType(domain, true),
    multiIf(
      [
        [eq(gadSource, str('1')), str('Paid Search')],
        [matches(campaign, VIDEO_CAMPAIGN), str('Paid Video')],
        [inputs.hasFbclid, str('Paid Social')],
      ],
      str('Paid Unknown'),
    ),
  ]);
  const direct = and(isDirectDomain, matches(medium, MISSING), matches(source, DIRECT_SOURCE), not(inputs.hasFbclid));
  const organicType = call('coalesce', [
    sourceType(source, false),
    shoppingCampaign(false),
    mediumType(medium, false),
    sourceType(domain, false),
    multiIf(
      [
        [matches(campaign, VIDEO_CAMPAIGN), str('Organic Video')],
        [matches(medium, 'push$'), str('Push')],
        [inputs.hasFbclid, str('Organic Social')],
        [isDirectDomain, str('Direct')],
        [compare('!=', domain, str('')), str('Referral')],
      ],
      str('Unknown'),
    ),
  ]);
  return multiIf(
    [
      [matches(campaign, 'cross-network'), str('Cross Network')],
      [paid, paidType],
      [direct, str('Direct')],
    ],
    organicType,
  );
}
