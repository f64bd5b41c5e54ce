// markdown.js: a note's Markdown shown in the page, safely (issue 19). The text is never
// parsed as HTML: every element is made with createElement and every character of the
// note goes in through textContent, so a note's "<script>" or "<img>" is shown as text.
// A subset of Markdown: headings, paragraphs, emphasis, strong, code spans and blocks,
// lists, quotes, rules and links. Links go only to http(s) and mailto, open in a new
// tab with rel="noopener noreferrer"; images are never loaded (their text is shown),
// so a note cannot make the page fetch anything (the CSP would refuse it anyway).
//
// A note may come from a drop (anyone holding the vault's drop code), so rendering is
// linear in the note's length: no regex here backtracks over a line, and inline spans
// are found by one scan with precomputed next-delimiter tables, not by a regex per span.

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
// Levels of nested quotes rendered as quotes; deeper ones are text.
const MAX_QUOTE_DEPTH = 8;

/** A DocumentFragment showing `text`'s Markdown. */
export function renderMarkdown(text, depth = 0) {
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
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      root.append(inline(el('h' + Math.min(heading[1].length + 2, 6)), headingText(heading[2])));
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
      // Quotes nest, each level a pass over what it holds: past MAX_QUOTE_DEPTH the rest
      // is shown as text, so a line of a million '>' costs one pass, not a million.
      if (depth < MAX_QUOTE_DEPTH) {
        quote.append(renderMarkdown(quoted.join('\n'), depth + 1));
      } else {
        quote.append(inline(el('p'), quoted.join(' ')));
      }
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

/** A heading's text without its closing run of '#' and the spaces around it (one
 * backwards pass; the regex this replaces backtracked over long runs of spaces). */
function headingText(text) {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === '#') hashes--;
  // A closing run counts only when it is the whole text or follows a space.
  if (hashes < end && (hashes === 0 || /\s/.test(text[hashes - 1]))) end = hashes;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  return text.slice(0, end);
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

/** For each position of `text`, the index of the next `test` character at or after it
 * (`text.length` when none): built in one backwards pass. */
function nextTable(text, test) {
  const next = new Int32Array(text.length + 1);
  next[text.length] = text.length;
  for (let i = text.length - 1; i >= 0; i--) next[i] = test(text[i]) ? i : next[i + 1];
  return next;
}

const isSpace = (c) => /\s/.test(c);
const isWord = (c) => c !== undefined && /\w/.test(c);

/** The inline span that starts at `i`, if any: [node-maker, end index]. The rules, in
 * the order they win at one position: code, image (shown as its text), link, strong,
 * emphasis. Each closer is looked up in `next`, so trying a position costs O(1) plus the
 * span's own length. */
function spanAt(text, i, next) {
  const c = text[i];
  const n = text.length;
  if (c === '`') {
    const close = next.tick[i + 1];
    if (close < n && close > i + 1) return [() => el('code', text.slice(i + 1, close)), close + 1];
  }
  if (c === '!' && text[i + 1] === '[') {
    const close = next.bracket[i + 2];
    const target = linkTarget(text, close, next, true);
    if (target !== null) {
      const alt = text.slice(i + 2, close);
      return [() => document.createTextNode(alt ? '[image: ' + alt + ']' : '[image]'), target.end];
    }
  }
  if (c === '[') {
    const close = next.bracket[i + 1];
    const target = close > i + 1 ? linkTarget(text, close, next, false) : null;
    if (target !== null) return [() => link(text.slice(i + 1, close), target.href), target.end];
  }
  if ((c === '*' || c === '_') && text[i + 1] === c) {
    // **strong** or __strong__: no marker of its kind inside.
    const close = (c === '*' ? next.star : next.under)[i + 2];
    if (close > i + 2 && close + 1 < n && text[close + 1] === c) {
      return [() => inline(el('strong'), text.slice(i + 2, close)), close + 2];
    }
  }
  if (c === '*') {
    const close = next.star[i + 1];
    if (close < n && close > i + 1 && !isSpace(text[i + 1])) return [() => inline(el('em'), text.slice(i + 1, close)), close + 1];
  }
  if (c === '_' && !isWord(text[i - 1])) {
    // _emphasis_ only between non-word characters, so snake_case_names stay as they are.
    const close = next.under[i + 1];
    if (close < n && close > i + 1 && !isSpace(text[i + 1]) && !isWord(text[close + 1])) {
      return [() => inline(el('em'), text.slice(i + 1, close)), close + 1];
    }
  }
  return null;
}

/** `(href)` right after the `]` at `close`: the href has no space and no ')'; an image's
 * may be empty. */
function linkTarget(text, close, next, emptyAllowed) {
  if (close >= text.length || text[close + 1] !== '(') return null;
  const end = next.paren[close + 2];
  if (end >= text.length || next.space[close + 2] < end) return null;
  if (end === close + 2 && !emptyAllowed) return null;
  return { href: text.slice(close + 2, end), end: end + 1 };
}

/** Appends `text`'s inline Markdown to `parent`, which it returns: one left-to-right
 * scan; the earliest span wins, and text between spans is appended as text. */
function inline(parent, text) {
  const next = {
    tick: nextTable(text, (c) => c === '`'),
    bracket: nextTable(text, (c) => c === ']'),
    paren: nextTable(text, (c) => c === ')'),
    space: nextTable(text, isSpace),
    star: nextTable(text, (c) => c === '*'),
    under: nextTable(text, (c) => c === '_'),
  };
  let plain = 0;
  let i = 0;
  while (i < text.length) {
    const span = '`![*_'.includes(text[i]) ? spanAt(text, i, next) : null;
    if (!span) {
      i += 1;
      continue;
    }
    if (i > plain) parent.append(document.createTextNode(text.slice(plain, i)));
    parent.append(span[0]());
    i = span[1];
    plain = i;
  }
  if (plain < text.length) parent.append(document.createTextNode(text.slice(plain)));
  return parent;
}

/** A link to an http(s) or mailto address; any other (javascript:, data:, a relative
 * path into the gallery's API) is shown as its text only. */
function link(label, href) {
  if (!SAFE_LINK.test(href)) return document.createTextNode(label);
  const a = inline(el('a'), label);
  a.href = href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  a.referrerPolicy = 'no-referrer';
  return a;
}
