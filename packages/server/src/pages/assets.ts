/**
 * The pages' two static assets: one stylesheet and one small script, served from this origin so that the pages'
 * Content-Security-Policy needs no `'unsafe-inline'`. The script only adds copy buttons; every page works without it.
 *
 * @module
 */
import { sha256Hex } from '../kernel/digest.js';
import type { Route, RouteResponse } from '../kernel/route.js';

/** The stylesheet of every page: one layout (header, sidebar, content), readable from a phone to a desktop. */
const STYLESHEET = `
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#ffffff;--soft:#f6f8fa;--accent:#0b57d0;--accent-fg:#ffffff;--danger:#b3261e;--ok:#146c2e;--warn-bg:#fff8c5;--radius:6px}
*{box-sizing:border-box}
html{font-size:100%;-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--soft)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #7aa7ff;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
.topbar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.6rem 1.25rem;background:#1f2328;color:#f0f3f6}
.topbar a{color:#f0f3f6;text-decoration:none}
.topbar a:hover{text-decoration:underline}
.brand{font-weight:700;font-size:1.05rem;letter-spacing:.01em;margin-right:auto}
.topnav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin:0;padding:0;list-style:none}
.topnav form{margin:0}
.topnav button{background:transparent;color:#f0f3f6;border:1px solid #8c959f;border-radius:var(--radius);padding:.2rem .7rem;font:inherit;cursor:pointer}
.who{color:#d0d7de}
.frame{display:grid;grid-template-columns:14rem minmax(0,1fr);gap:1.5rem;max-width:80rem;margin:1.5rem auto;padding:0 1.25rem}
.frame.single{grid-template-columns:minmax(0,1fr);max-width:30rem}
.frame.wide{grid-template-columns:minmax(0,1fr);max-width:44rem}
.sidebar h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:.2rem 0 .5rem}
.sidebar ul{list-style:none;margin:0 0 1.25rem;padding:0}
.sidebar a{display:block;padding:.4rem .7rem;border-radius:var(--radius);color:var(--fg);text-decoration:none}
.sidebar a:hover{background:#eaeef2}
.sidebar a[aria-current="page"]{background:var(--bg);border-left:3px solid var(--accent);font-weight:600}
main{min-width:0}
.panel{background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem 1.5rem;margin-bottom:1.25rem}
h1{font-size:1.5rem;margin:.2rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:1rem 0 .5rem}
p{margin:.5rem 0}
.muted,.hint{color:var(--muted)}
.hint{font-size:.875rem;margin:.2rem 0 0}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}
fieldset{border:1px solid var(--line);border-radius:var(--radius);margin:.9rem 0 0;padding:.5rem .9rem .8rem}
legend{font-weight:600;padding:0 .3rem}
fieldset label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.4rem 0}
input[type=text],input[type=password],input[type=email],input[type=search],input[type=date],input[type=datetime-local],input[type=url],select,textarea{display:block;width:100%;max-width:32rem;font:inherit;padding:.45rem .6rem;border:1px solid #8c959f;border-radius:var(--radius);background:var(--bg);color:var(--fg)}
textarea{min-height:5rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.45rem 1rem;border-radius:var(--radius);border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none;line-height:1.4}
button.secondary,.button.secondary{background:var(--bg);color:var(--accent)}
button.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:#fff}
button.link{background:none;border:none;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin-top:1rem}
form.inline{display:inline;margin:0}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
td code,td .mono{overflow-wrap:break-word}
pre{background:var(--soft);border:1px solid var(--line);border-radius:var(--radius);padding:.7rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.notice{border-radius:var(--radius);padding:.7rem .9rem;margin:0 0 1rem;border:1px solid}
.notice.ok{background:#dafbe1;border-color:#4ac26b;color:#0f3d1c}
.notice.error{background:#ffebe9;border-color:#ff8182;color:#6b0f0a}
.notice.info{background:var(--warn-bg);border-color:#d4a72c;color:#3b2300}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret code{background:var(--soft);border:1px solid var(--line);border-radius:var(--radius);padding:.35rem .5rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .45rem;border-radius:999px;border:1px solid var(--line);background:var(--soft);color:var(--muted);white-space:nowrap}
.badge.ok{border-color:#4ac26b;color:var(--ok)}
.badge.admin{border-color:#8250df;color:#5a32a3}
.pager{display:flex;gap:1rem;margin-top:1rem}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:0 1rem;align-items:end}
.filters label{margin-top:.5rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.problems li{color:var(--danger)}
@media (max-width:48rem){.frame{grid-template-columns:minmax(0,1fr);margin:1rem auto}.sidebar ul{display:flex;flex-wrap:wrap;gap:.25rem}.sidebar a[aria-current="page"]{border-left:none;border-bottom:3px solid var(--accent)}.panel{padding:1rem}}
table.settings-table th,table.settings-table td:not(:first-child),table.settings-table td:not(:first-child) code{overflow-wrap:normal}
.settings-ua summary{cursor:pointer;font-size:.875rem;color:var(--muted)}
table.audit-log{min-width:48rem}
table.oauth-apps{min-width:44rem}
.audit-log th,.audit-log td.nowrap,.oauth-apps th{white-space:nowrap;overflow-wrap:normal}
.audit-log td.time{white-space:nowrap;overflow-wrap:normal}
.audit-log td.details{min-width:9rem}
.audit-log td.details code,.audit-log td.details .mono{overflow-wrap:anywhere}
.plain-list{list-style:none;margin:0;padding:0}
.audit-log td.details .audited-trace{min-width:18rem}
.sign-in-trace{padding-left:1.5rem}
.sign-in-trace blockquote{margin:.25rem 0 .25rem 1rem;color:#4b5563}
.sign-in-trace pre{overflow-x:auto}
table.limits th{white-space:nowrap}
table.limits td.num{overflow-wrap:normal}
table.admin-table{min-width:34rem}
`.trim();

/** The script: shows each copy button (hidden without it) and copies the text of the element it names. */
const SCRIPT = `(function () {
  'use strict';
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    var button = buttons[i];
    button.hidden = false;
    button.addEventListener('click', function (event) {
      var source = document.getElementById(event.currentTarget.getAttribute('data-copy'));
      var self = event.currentTarget;
      if (source === null || !navigator.clipboard) return;
      navigator.clipboard.writeText(source.textContent || '').then(function () {
        self.textContent = 'Copied';
      }, function () {
        self.textContent = 'Copy failed: select the text';
      });
    });
  }
})();
`;

/** The version an asset's path carries: the first 12 hex digits of its content's SHA-256. */
function versionOf(text: string): string {
  return sha256Hex(text).slice(0, 12);
}

/**
 * The assets' paths, each carrying a digest of its content so a browser may keep it for a year.
 *
 * @example
 * ```ts
 * ASSET_PATHS.stylesheet; // '/.assets/gatehouse.css?v=…'
 * ```
 */
export const ASSET_PATHS: { readonly stylesheet: string; readonly script: string } = Object.freeze({
  stylesheet: `/.assets/gatehouse.css?v=${versionOf(STYLESHEET)}`,
  script: `/.assets/gatehouse.js?v=${versionOf(SCRIPT)}`,
});

function asset(type: string, text: string): RouteResponse {
  return { status: 200, headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' }, body: text };
}

/**
 * The routes of the two assets (`GET /.assets/gatehouse.css`, `GET /.assets/gatehouse.js`).
 *
 * @returns The routes.
 *
 * @example
 * ```ts
 * assetRoutes().map((r) => r.path); // ['/.assets/gatehouse.css', '/.assets/gatehouse.js']
 * ```
 */
export function assetRoutes(): readonly Route[] {
  return [
    { methods: ['GET'], path: '/.assets/gatehouse.css', handler: async () => asset('text/css; charset=utf-8', STYLESHEET) },
    { methods: ['GET'], path: '/.assets/gatehouse.js', handler: async () => asset('text/javascript; charset=utf-8', SCRIPT) },
  ];
}
