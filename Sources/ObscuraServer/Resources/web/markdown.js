// markdown.js: a note's Markdown shown in the page, safely (issue 19). The text is never
// parsed as HTML: every element is made with createElement and every character of the
// note goes in through textContent, so a note's "<script>" or "<img>" is shown as text.
// A subset of Markdown: headings, paragraphs, emphasis, strong, code spans and blocks,
// lists, quotes, rules and links. Links go only to http(s) and mailto, open in a new
// tab with rel="noopener noreferrer"; images are never loaded (their text is shown),
// so a note cannot make the page fetch anything (the CSP would refuse it anyway).

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** A DocumentFragment showing `text`'s Markdown. */
export function renderMarkdown(text) {
  const root = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      const code = [];
      i += 1;
      while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++]);
      i += 1; // the closing fence, or the end
      const pre = el('pre');
      pre.append(el('code', code.join('\n')));
      root.append(pre);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      root.append(inline(el('h' + Math.min(heading[1].length + 2, 6)), heading[2]));
      i += 1;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      root.append(el('hr'));
      i += 1;
      continue;
    }
    const listKind = listItem(line);
    if (listKind) {
      const list = el(listKind.ordered ? 'ol' : 'ul');
      while (i < lines.length) {
        const item = listItem(lines[i]);
        if (!item || item.ordered !== listKind.ordered) break;
        list.append(inline(el('li'), item.text));
        i += 1;
      }
      root.append(list);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ''));
      const quote = el('blockquote');
      quote.append(renderMarkdown(quoted.join('\n')));
      root.append(quote);
      continue;
    }
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() !== '' && !startsBlock(lines[i])) paragraph.push(lines[i++].trim());
    root.append(inline(el('p'), paragraph.join(' ')));
  }
  return root;
}

function startsBlock(line) {
  return /^\s*```/.test(line) || /^#{1,6}\s/.test(line) || /^\s*>/.test(line) || listItem(line) !== null;
}

function listItem(line) {
  const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
  if (bullet) return { ordered: false, text: bullet[1] };
  const number = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
  if (number) return { ordered: true, text: number[1] };
  return null;
}

function el(name, text) {
  const element = document.createElement(name);
  if (text !== undefined) element.textContent = text;
  return element;
}

// Inline spans, earliest first: code, image (shown as its text), link, strong, emphasis.
const INLINE = [
  { re: /`([^`]+)`/, make: (m) => el('code', m[1]) },
  { re: /!\[([^\]]*)\]\(([^)\s]*)\)/, make: (m) => document.createTextNode(m[1] ? '[image: ' + m[1] + ']' : '[image]') },
  { re: /\[([^\]]+)\]\(([^)\s]+)\)/, make: link },
  { re: /\*\*([^*]+)\*\*|__([^_]+)__/, make: (m) => inline(el('strong'), m[1] ?? m[2]) },
  { re: /\*([^*\s][^*]*)\*|\b_([^_\s][^_]*)_\b/, make: (m) => inline(el('em'), m[1] ?? m[2]) },
];

/** Appends `text`'s inline Markdown to `parent`, which it returns. */
function inline(parent, text) {
  let rest = text;
  while (rest) {
    let best = null;
    for (const rule of INLINE) {
      const m = rule.re.exec(rest);
      if (m && (!best || m.index < best.m.index)) best = { m, rule };
    }
    if (!best) break;
    if (best.m.index > 0) parent.append(document.createTextNode(rest.slice(0, best.m.index)));
    parent.append(best.rule.make(best.m));
    rest = rest.slice(best.m.index + best.m[0].length);
  }
  if (rest) parent.append(document.createTextNode(rest));
  return parent;
}

/** A link to an http(s) or mailto address; any other (javascript:, data:, a relative
 * path into the gallery's API) is shown as its text only. */
function link(m) {
  const [, label, href] = m;
  if (!SAFE_LINK.test(href)) return document.createTextNode(label);
  const a = inline(el('a'), label);
  a.href = href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  a.referrerPolicy = 'no-referrer';
  return a;
}
