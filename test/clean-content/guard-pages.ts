/**
 * Pages and fake models for the cleaning guard's tests (guard.test.ts): articles, pages of links, a docs page and
 * an ordinary blog post and product page, each behind a big menu or sidebar where the guard's measures once read
 * the chrome as content, and models that keep or drop blocks by their preview.
 */
import type { LlmRequestLog } from "../llm/fake-llm.ts";

/** The `[n] preview` lines of a cleaning request. */
function previews(req: LlmRequestLog): { n: number; text: string }[] {
  const user = req.messages.find((m) => m.role === "user")!.content;
  return [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
}

/** A model that drops every block but those whose preview matches `keep`. */
export function keeping(keep: RegExp) {
  return (req: LlmRequestLog) => ({ content: JSON.stringify({ remove: previews(req).filter((b) => !keep.test(b.text)).map((b) => b.n) }) });
}

/** A model that drops the blocks whose preview matches `drop`. */
export function dropping(drop: RegExp) {
  return (req: LlmRequestLog) => ({ content: JSON.stringify({ remove: previews(req).filter((b) => drop.test(b.text)).map((b) => b.n) }) });
}

/** An article's six paragraphs: 1,236 characters of prose. */
export const PARAGRAPHS = [
  "The river authority opened the new flood barrier on Monday, three years after the storm that put half of the old town under water and closed the station, the market and both schools for most of a month.",
  "Its twelve steel gates close within forty minutes when the gauge upstream passes the warning level, and they can be worked by hand if the power fails, as it did on the night of the storm three years ago.",
  "Engineers tested the barrier through the winter with water pumped in from the harbour, and the gates held at twice the height of the flood, the authority said in a report published on its website last week.",
  "Shop owners along the quay, who lost stock twice in a decade, said they would now insure their ground floors again for the first time, though premiums are still higher than they were before the storm.",
  "The barrier cost less than planned because the old bridge piers were reused as its footings, which saved a year of work in the river and spared the fishing season that the first plan would have cut short.",
  "A footpath runs along its top, and the authority will open a small museum of the town's floods in the old pump house next spring, with the gauge records kept since the river was first measured.",
];
const RELATED = Array.from({ length: 8 }, (_, i) => `<li><a href="/news/${i}">Related story number ${i}: the harbour, the council and the new ferry timetable</a></li>`).join("");
/** The article's body: its heading, its paragraphs and its "Related" list. */
export const ARTICLE_BODY = `<h1>New flood barrier opens</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}<h2>Related</h2><ul>${RELATED}</ul>`;
export const ARTICLE = `<html><body>${ARTICLE_BODY}</body></html>`;
/** Matches the previews of the article's "Related" heading and list. */
export const RELATED_BLOCKS = /^## Related|^- \[Related story/;

/** A menu of ten sections of 14 links each, each section under an `<h3>`, labelled `${section} ${label(i)}`. */
export function bigMenu(sections: readonly string[], label: (i: number) => string): string {
  return sections.map((s) => `<h3>${s}</h3><ul>${Array.from({ length: 14 }, (_, i) => `<li><a href="/${s}/${i}">${s} ${label(i)}</a></li>`).join("")}</ul>`).join("");
}
export const NEWS_MENU = bigMenu(["News", "World", "Business", "Tech", "Science", "Health", "Sport", "Culture", "Travel", "Opinion"], (i) => `topic number ${i} long label`);
const DOCS_SECTIONS = ["Guides", "Tutorials", "Concepts", "Reference", "SDKs", "Webhooks", "Security", "Billing", "Limits", "Changelog"];
/** A docs site's menu: 140 links, "Guides page 0 title"… */
export const DOCS_NAV = bigMenu(DOCS_SECTIONS, (i) => `page ${i} title`);
/** Matches the previews of {@link DOCS_NAV}'s headings and lists. */
export const DOCS_NAV_BLOCKS = new RegExp(`^### (${DOCS_SECTIONS.join("|")})$|^- \\[(${DOCS_SECTIONS.join("|")}) page \\d+ title`);
const DOCS_FOOTER = "<p>© 2026 Example Docs. All rights reserved.</p>";

/** A docs site's "API reference": its menu, a heading and a list of 20 endpoints, a footer. */
export const API_REFERENCE = `<html><body>${DOCS_NAV}<h1>API reference</h1><ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/api/${i}">endpoint ${i}: list things</a></li>`).join("")}</ul>${DOCS_FOOTER}</body></html>`;
/** The article on the docs site: its menu, the article's heading and paragraphs, a footer. */
export const NAV_ARTICLE = `<html><body>${DOCS_NAV}<h1>New flood barrier opens</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}${DOCS_FOOTER}</body></html>`;

const BANNER = "<p>We use cookies to improve your experience. By continuing to browse you agree to our use of cookies. Read our cookie policy for details.</p>";
const FOOTER = "<p>Newsletter: get the weekly digest in your inbox every Monday. Sign up now, it is free.</p><p>© 2026 Example Media Group. All rights reserved. Registered in England and Wales.</p>";
/** Matches the previews of the link pages' banner and footer. */
export const LINK_PAGE_CHROME = /cookies|Newsletter|©/;
/** Pages whose content is links, between a cookie banner and a footer. */
export const LINK_PAGES: Record<string, string> = Object.fromEntries(
  Object.entries({
    "/downloads": `<h1>Downloads</h1><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/files/tool-${i}.zip">Tool release 2.${i} for Linux, macOS and Windows (zip)</a></li>`).join("")}</ul>`,
    "/gallery": `<h1>Photos</h1>${Array.from({ length: 16 }, (_, i) => `<p><a href="/photo/${i}"><img src="/img/${i}.jpg" alt="The old harbour at dawn, photo ${i} of the series"></a></p>`).join("")}`,
    "/articles": `<h1>All articles</h1><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/a/${i}">Article number ${i}: a headline about something that happened this week</a></li>`).join("")}</ul>`,
  }).map(([path, content]) => [path, `<html><body>${BANNER}${content}${FOOTER}</body></html>`]),
);

const POST = [
  "I moved my small shop's server from a rented machine to a box under the desk last spring, and this is what a year of running it looked like, with the bills, the outages and the one night it went badly wrong.",
  "The box cost less than four months of the old rent, and it draws about as much power as a desk lamp. Backups go to a disk at a friend's house every night, and once a month I restore one to check it.",
  "There were two outages: a power cut that the small battery rode through, and a failed update that took the site down for an hour while I was asleep. The second taught me to update in the morning.",
  "Would I do it again? Yes, for a shop of this size. A bigger one would need a second box, a better line and someone on call, and then the rented machine starts to look cheap again.",
];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
/** A blog post with an archive sidebar of 40 links ("March 2024 (3 posts)"). */
export const BLOG_POST = `<html><body><h1>A year of self-hosting the shop</h1><p>Posted by Sam on 4 May 2026</p>${POST.map((p) => `<p>${p}</p>`).join("")}<h3>Archive</h3><ul>${Array.from({ length: 40 }, (_, i) => `<li><a href="/archive/${i}">${MONTHS[i % 12]} ${2026 - Math.floor(i / 12)} (${(i % 5) + 1} posts)</a></li>`).join("")}</ul><p>Powered by a small static site generator.</p></body></html>`;
/** Matches the previews of the blog's sidebar and footer. */
export const BLOG_CHROME = /^### Archive|^- \[\w+ \d{4} \(|^Powered by/;

const LEGAL = [
  "Prices include VAT at the applicable rate and exclude delivery, which is charged at checkout according to the destination and the weight of the order. Offers are valid while stocks last and may end without notice.",
  "You may cancel your order within fourteen days of delivery without giving a reason. To do so, inform us in writing and return the goods unused, in their original packaging, at your own cost, within fourteen days.",
  "The legal guarantee of conformity applies for two years from delivery. It does not cover wear from normal use, damage from misuse, or products altered or repaired by anyone other than us or our agents.",
  "Example Outdoor Ltd, registered in England and Wales under number 01234567, registered office 1 High Street, Exampletown. VAT number GB 123 4567 89. Disputes are subject to the courts of England and Wales.",
  "Personal data given with an order is used to deliver it and, if you agreed, to send you offers; see our privacy notice for how long it is kept, who receives it and how to exercise your rights.",
];
/** A product page: its name and price, a description, links to its variants, and a long legal footer. */
export const PRODUCT_PAGE = `<html><body><h1>Trail runner 2 shoe</h1><p>€129.00, free returns</p><p>A light trail shoe with a grippy outsole and a cushioned midsole for long days on rough ground. The upper dries fast and the toe cap takes the knocks.</p><p>Weight 280 g per shoe in size 42; drop 6 mm.</p><ul>${["Black", "Blue", "Red", "Green"].map((c) => `<li><a href="/p/trail-runner-2/${c.toLowerCase()}">${c}</a></li>`).join("")}</ul><ul>${Array.from({ length: 10 }, (_, i) => `<li><a href="/p/trail-runner-2/size-${38 + i}">Size ${38 + i}</a></li>`).join("")}</ul>${LEGAL.map((p) => `<p>${p}</p>`).join("")}</body></html>`;
/** Matches the previews of the product page's legal footer. */
export const PRODUCT_CHROME = new RegExp(LEGAL.map((p) => `^${p.slice(0, 20)}`).join("|"));

/** A short recipe (about 520 characters of prose) on a site with a big menu, its "More recipes" list after it. */
export const RECIPE = `<html><body>${NEWS_MENU}<h1>Lemon barley water</h1><p>A cordial for hot afternoons, ready in an hour and kept a week in the fridge.</p><ul>${["100 g pearl barley", "2 unwaxed lemons", "1.5 litres of water", "80 g sugar", "a sprig of mint", "ice to serve"].map((x) => `<li>${x}</li>`).join("")}</ul><ol>${["Rinse the barley and simmer it in the water for 30 minutes.", "Strain the liquid onto the lemon zest and sugar and stir until dissolved.", "Add the lemon juice, let it cool, then chill it with the mint.", "Serve over ice, diluted to taste with still or sparkling water."].map((x) => `<li>${x}</li>`).join("")}</ol><h2>More recipes</h2><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/recipes/${i}">Another summer drink number ${i}</a></li>`).join("")}</ul></body></html>`;
export const MORE_RECIPES_BLOCKS = /^## More recipes|^- \[Another summer drink/;
