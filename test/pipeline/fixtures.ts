/** Shared HTML fixtures for the pipeline tests. */

export const PARAGRAPHS = [
  "The committee met on Tuesday to review the budget, and after a long debate it approved the new plan for the river bridge.",
  "Engineers said the old structure, built in 1931, had reached the end of its service life; repairs would cost more than a replacement.",
  "Construction is expected to start in spring, with traffic diverted to the northern crossing while the work is carried out.",
  "Residents who spoke at the meeting welcomed the decision, although several asked for a footpath on both sides of the new deck.",
  "The council will publish the detailed drawings next month and invites comments from the public until the end of the summer.",
];

const NAV = `<nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/contact">Contact</a></li></ul></nav>`;
const SIDEBAR = `<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/p/1">Ten things to do this weekend</a></li><li><a href="/p/2">Where to eat downtown</a></li></ul></aside>`;
const FOOTER = `<footer class="site-footer"><p>Copyright 2024 Example Media Ltd. All rights reserved.</p><a href="/privacy">Privacy policy</a></footer>`;

/** A classic page: header with navigation, an <article>, a sidebar and a footer. */
export const ARTICLE_PAGE = `<!doctype html><html><head><title>Bridge plan approved</title><meta charset="utf-8"><link rel="stylesheet" href="/s.css"><style>body{color:red}</style></head>
<body><header class="site-header"><a href="/" class="logo">Example News</a>${NAV}</header>
<div class="layout"><main><article><h1>Council approves bridge plan</h1>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("\n")}
<p>Read the <a href="/docs/plan.pdf">full plan</a> for details.</p>
</article>${SIDEBAR}</div>${FOOTER}<script>track("pageview")</script></body></html>`;

/** The same content with no semantic tags at all: only divs with meaningless class names. */
export const DIV_PAGE = `<html><body>
<div class="a1"><div class="b2"><a href="/">Home</a> <a href="/x">Products</a> <a href="/y">Pricing</a> <a href="/z">Blog</a> <a href="/w">Login</a></div></div>
<div class="c3"><div class="d4"><div class="e5">${PARAGRAPHS.map((p) => `<div class="f6">${p}</div>`).join("")}</div></div>
<div class="g7"><div><a href="/t/1">Tag one</a></div><div><a href="/t/2">Tag two</a></div><div><a href="/t/3">Tag three</a></div><div><a href="/t/4">Tag four</a></div></div></div>
<div class="h8"><a href="/about">About</a> | <a href="/jobs">Jobs</a> | <a href="/terms">Terms</a> | <a href="/press">Press</a></div>
</body></html>`;

/** An article followed by a long comment thread. */
export const COMMENTS_PAGE = `<html><body><div id="content"><div class="post-content">
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("\n")}
</div><section id="comments" class="comments-area"><h2>42 comments</h2>
${Array.from({ length: 12 }, (_, i) => `<div class="comment"><span class="comment-author">reader${i}</span><p>I have lived next to this bridge for twenty years, comment number ${i}, and frankly it was time somebody did something about it.</p></div>`).join("\n")}
</section></div></body></html>`;
