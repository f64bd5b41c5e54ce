// viewer.js: one item at a time, full screen. Photos show their preview with
// zoom, and the original once zoomed past the preview's pixels; videos play from
// the original, or from their rendition when browsers cannot play the original (HEVC),
// with the conversion's progress shown until it is ready (the server answers Range
// requests, so seeking works); downloads always give the original;
// previous/next by buttons, ←/→, swipe; Esc closes. An item with an end in views is
// opened as a counted view first (ends.js), and its view closed when the viewer leaves it.

import { get, post, postKeepalive, urls } from './api.js';
import { endText, openEndDialog } from './ends.js';
import { captureTime } from './catalog.js';
import { bytes, dateTime } from './format.js';
import { confirmAction, toast } from './dialogs.js';
import { undoDelete } from './actions.js';
import { Zoom } from './zoom.js';

const $ = (id) => document.getElementById(id);
// Formats every browser shows in an <img>; for others (HEIC, TIFF) the server makes a
// full-size JPEG to zoom into.
const SHOWN_AS_IS = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/bmp']);

/** The size a photo shows at: EXIF orientations 5–8 turn it a quarter. */
export function shownSize(item) {
  if (!item.width || !item.height) return null;
  return item.orientation >= 5 && item.orientation <= 8 ? [item.height, item.width] : [item.width, item.height];
}

export class Viewer {
  /** `onClose(index)` runs once the viewer closed; `onRequestClose()` when the user asks
   * to close it (the router decides: Back, or a rewritten address); `onShow(item)` for
   * every item shown, so the address can follow. */
  constructor({ catalog, folders = null, onClose, onRequestClose, onShow }) {
    this.catalog = catalog;
    // Its counts follow what the viewer moves to and from the trash.
    this.folders = folders;
    this.onClose = onClose;
    this.onRequestClose = onRequestClose ?? (() => this.close());
    this.onShow = onShow ?? (() => {});
    this.index = -1;
    this.root = $('viewer');
    this.image = $('viewer-image');
    this.video = $('viewer-video');
    this.motion = $('viewer-motion');
    this.zoom = new Zoom($('viewer-stage'), this.image, {
      onSwipe: (step) => this.step(step),
      onScale: (scale) => this.maybeLoadOriginal(scale),
    });

    $('viewer-close').addEventListener('click', () => this.onRequestClose());
    $('viewer-prev').addEventListener('click', () => this.step(-1));
    $('viewer-next').addEventListener('click', () => this.step(1));
    $('viewer-zoom-in').addEventListener('click', () => this.zoom.by(1.5));
    $('viewer-zoom-out').addEventListener('click', () => this.zoom.by(1 / 1.5));
    $('viewer-favorite').addEventListener('click', () => this.toggleFavorite());
    $('viewer-restore').addEventListener('click', () => this.restore());
    $('viewer-delete').addEventListener('click', () => this.moveToTrash());
    $('viewer-end').addEventListener('click', () => this.giveEnd());
    // A counted view left open by a closing page still ends: the server bounds it too.
    window.addEventListener('pagehide', () => {
      if (this.viewing) postKeepalive('/api/items/' + encodeURIComponent(this.viewing) + '/view/close', {});
      this.viewing = null;
    });
    // A Live Photo's motion plays while the badge is hovered, or the photo pressed
    // (touch, or a held mouse button); a click on the badge plays it once.
    const live = $('viewer-live');
    live.addEventListener('pointerenter', () => this.playMotion());
    live.addEventListener('pointerleave', () => this.stopMotion());
    live.addEventListener('click', () => this.playMotion());
    this.image.addEventListener('pointerdown', (event) => {
      if (this.current?.companion?.role === 'motion' && !this.zoom.zoomed && event.button === 0) this.playMotion();
    });
    for (const type of ['pointerup', 'pointercancel']) this.image.addEventListener(type, () => this.stopMotion());
    this.motion.addEventListener('ended', () => this.stopMotion());
    document.addEventListener('keydown', (event) => this.key(event));
    // The poster is the 256-pixel thumbnail, blurred when stretched to the screen: it
    // only bridges the wait, and goes as soon as the video's own first frame is decoded.
    this.video.addEventListener('loadeddata', () => this.video.removeAttribute('poster'));
    this.image.addEventListener('load', () => this.loaded());
    this.image.addEventListener('error', () => this.loaded());
    catalog.addEventListener('change', () => {
      if (this.isOpen && this.item && this.catalog.items[this.index]?.id !== this.item.id) this.resync();
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  get item() {
    return this.current ?? null;
  }

  open(index) {
    this.opener = document.activeElement;
    this.root.hidden = false;
    $('app-view').inert = true; // Tab stays inside the viewer
    document.body.classList.add('viewing');
    this.show(index);
    $('viewer-close').focus();
  }

  close() {
    if (!this.isOpen) return;
    this.endView();
    this.stopVideo();
    this.stopMotion();
    this.image.removeAttribute('src');
    this.original = null;
    this.dropOriginal();
    this.root.hidden = true;
    $('app-view').inert = false;
    document.body.classList.remove('viewing');
    const index = this.index;
    this.current = null;
    this.onClose(index);
  }

  async step(delta) {
    // Notes open in their own view, never here: the step passes over them to the next
    // photo or video, and stays put when there is none that way.
    let next = this.index + delta;
    for (;;) {
      if (next < 0) return;
      if (next >= this.catalog.items.length) {
        await this.catalog.ensure(next);
        if (next >= this.catalog.items.length) return;
      }
      if (this.catalog.items[next].kind !== 'note') break;
      next += delta;
    }
    this.show(next);
  }

  show(index) {
    const item = this.catalog.items[index];
    if (!item) return this.onRequestClose();
    if (this.viewing && this.viewing !== item.id) this.endView();
    this.index = index;
    this.current = item;
    this.onShow(item);
    this.zoom.reset();
    this.stopVideo();
    this.stopMotion();
    const companion = item.companion;
    $('viewer-live').hidden = companion?.role !== 'motion';
    // A pair's second original downloads on its own: the RAW, or the motion as imported.
    $('viewer-download-companion').hidden = !companion;
    if (companion) {
      const what = companion.role === 'raw' ? 'the RAW' : 'the motion';
      $('viewer-download-companion').href = urls.companionDownload(item.id);
      $('viewer-download-companion').setAttribute('download', companion.name);
      $('viewer-download-companion').setAttribute('aria-label', 'Download ' + what + ' (' + companion.name + ')');
      $('viewer-download-companion').title = 'Download ' + what + ' (' + companion.name + ')';
      // Its own extension, as the file is named: MOV, DNG, CR3...
      const extension = /\.([A-Za-z0-9]{1,5})$/.exec(companion.name)?.[1];
      $('viewer-companion-kind').textContent = extension ? extension.toUpperCase() : companion.role === 'raw' ? 'RAW' : 'Motion';
    }
    $('viewer-name').textContent = item.name;
    this.original = null;
    this.dropOriginal();
    this.image.style.width = '';
    this.image.style.height = '';
    delete this.image.dataset.full;
    const details = [dateTime(captureTime(item))];
    const size = shownSize(item);
    if (size) details.push(size[0] + '\u00a0×\u00a0' + size[1]); // never broken across lines
    details.push(bytes(item.size));
    if (item.place) details.push(item.place);
    if (item.deletedAt) {
      const left = Math.max(0, Math.ceil((item.deletedAt + 30 * 86400 - Date.now() / 1000) / 86400));
      details.push('In the trash: ' + left + (left === 1 ? ' day left' : ' days left'));
    }
    $('viewer-date').textContent = details.join(' · ');
    const total = Math.max(this.catalog.total, this.catalog.items.length);
    $('viewer-position').textContent = (index + 1).toLocaleString() + ' / ' + total.toLocaleString();
    $('viewer-prev').disabled = index === 0;
    $('viewer-next').disabled = index >= total - 1;
    $('viewer-restore').hidden = !item.deletedAt;
    $('viewer-delete').hidden = !!item.deletedAt;
    $('viewer-download').href = urls.download(item.id);
    $('viewer-download').setAttribute('download', item.name);
    // A view-limited item is never downloaded; nor is its second file.
    $('viewer-download').hidden = item.viewsLeft != null;
    if (item.viewsLeft != null) $('viewer-download-companion').hidden = true;
    $('viewer-end').hidden = !!item.deletedAt;
    this.paintFavorite();
    this.paintEnding();
    if (item.viewsLeft != null && this.viewing !== item.id) {
      // Nothing of it shows before the server has counted the view.
      this.image.hidden = true;
      this.video.hidden = true;
      $('viewer-file').hidden = true;
      this.image.removeAttribute('src');
      $('viewer-spinner').hidden = false;
      this.openCounted(item, index);
      return;
    }
    this.showContent(item, index);
  }

  /** Asks the server to count a view of `item`, then shows it. */
  async openCounted(item, index) {
    let counted;
    try {
      counted = await post('/api/items/' + encodeURIComponent(item.id) + '/view', {});
    } catch (failure) {
      if (this.current !== item) return;
      $('viewer-spinner').hidden = true;
      toast(failure.message, 'error');
      if (failure.status === 410 || failure.status === 404) this.catalog.drop([item.id]);
      return;
    }
    if (this.current !== item) {
      // Moved on while the view was being counted: close it again at once.
      postKeepalive('/api/items/' + encodeURIComponent(counted.id) + '/view/close', {});
      return;
    }
    this.viewing = counted.id;
    this.current = counted;
    this.catalog.update(counted);
    this.paintEnding();
    this.showContent(counted, index);
  }

  /** Closes the counted view the viewer holds, if any; the last one deletes the item. */
  endView() {
    const id = this.viewing;
    if (!id) return;
    this.viewing = null;
    const name = this.catalog.items[this.catalog.indexOf(id)]?.name ?? 'The item';
    post('/api/items/' + encodeURIComponent(id) + '/view/close', {})
      .then((answer) => {
        if (!answer?.ended) return;
        toast(name + ' has ended and is deleted for good');
        this.catalog.drop([id]);
      })
      .catch(() => { /* locked, or gone already: the server bounds the view */ });
  }

  /** The line that says when the shown item ends, kept to the second while it shows. */
  paintEnding() {
    clearInterval(this.endingTimer);
    const item = this.current;
    const line = $('viewer-ending');
    const text = item ? endText(item) : '';
    line.hidden = !text;
    line.textContent = text;
    $('viewer-end').setAttribute('aria-pressed', String(!!text));
    if (!item || item.endsAt == null) return;
    this.endingTimer = setInterval(() => {
      if (this.current !== item || !this.isOpen) return clearInterval(this.endingTimer);
      if (item.endsAt <= Date.now() / 1000) {
        clearInterval(this.endingTimer);
        if (this.viewing === item.id) this.viewing = null;
        toast(item.name + ' has ended and is deleted for good');
        this.catalog.drop([item.id]);
        return;
      }
      line.textContent = endText(item);
    }, 1000);
  }

  /** Opens the end dialog for the shown item. */
  giveEnd() {
    const item = this.current;
    if (!item) return;
    openEndDialog([item.id], (items) => {
      for (const updated of items) {
        this.catalog.update(updated);
        if (this.current?.id === updated.id) this.current = updated;
      }
      // An end in views takes effect at the next opening: this one was not counted.
      this.paintEnding();
      toast(endText(this.current ?? item) ? 'The end is set' : 'The end is taken away');
    });
  }

  /** Shows the item's picture, video or file icon. */
  showContent(item, index) {
    const isVideo = item.kind === 'video';
    const isImage = item.kind === 'photo' || (item.kind !== 'video' && item.hasThumbnail);
    this.zoom.enabled = !isVideo;
    $('viewer-zoom-in').disabled = !isImage;
    $('viewer-zoom-out').disabled = !isImage;
    this.image.hidden = !isImage;
    this.video.hidden = !isVideo;
    $('viewer-file').hidden = isVideo || isImage;
    this.root.dataset.kind = item.kind;
    if (isImage) {
      $('viewer-spinner').hidden = false;
      this.image.classList.remove('ready');
      this.image.alt = item.name;
      this.image.src = urls.preview(item.id);
      this.preload(index + 1);
      this.preload(index - 1);
    } else {
      this.image.removeAttribute('src');
      $('viewer-spinner').hidden = true;
    }
    if (isVideo) {
      if (item.hasThumbnail) this.video.poster = urls.preview(item.id);
      else this.video.removeAttribute('poster');
      this.video.setAttribute('aria-label', item.name);
      this.playVideo(item);
    }
  }

  /** Plays the rendition if the item has one, the original if it needs none (or its
   * conversion failed); while it is being made, says how far it is and waits. */
  playVideo(item) {
    const note = $('viewer-rendition');
    note.hidden = item.rendition !== 'pending' && item.rendition !== 'failed';
    if (item.rendition === 'pending') {
      note.textContent = 'Preparing this video for playback…';
      this.waitForRendition(item);
      return;
    }
    if (item.rendition === 'failed') note.textContent = 'This video could not be converted for the browser; the original may not play here. Download it to watch.';
    this.video.src = item.rendition === 'ready' ? urls.rendition(item.id) : urls.original(item.id);
  }

  /** Polls the background conversion until the shown item's rendition is settled: while
   * the page is in view, and only as long as the conversion is at work (a vault left open
   * on a video must still lock itself; the status does not count as activity). */
  async waitForRendition(item) {
    let idle = 0;
    const note = $('viewer-rendition');
    while (this.current === item && this.isOpen) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (this.current !== item || !this.isOpen) return;
      if (document.hidden) continue;
      let status;
      try {
        status = await get('/api/renditions?id=' + encodeURIComponent(item.id));
      } catch {
        return; // locked, or the item is gone: the page's own handlers take over
      }
      if (this.current !== item) return;
      if (status.state && status.state !== 'pending') {
        item.rendition = status.state;
        this.playVideo(item);
        return;
      }
      if (status.current === item.id) {
        idle = 0;
        note.textContent = 'Preparing this video for playback… ' + Math.floor(status.progress * 100) + '%';
      } else if (status.pending === 0 && ++idle >= 5) {
        note.textContent = 'This video waits to be prepared for playback: it will be the next time the vault is unlocked.';
        return;
      }
    }
  }

  /** Plays the shown Live Photo's motion over its still: the rendition when the movie
   * needed one (asked for again if it was still being made when the item was shown). */
  async playMotion() {
    const item = this.current;
    if (item?.companion?.role !== 'motion' || !this.motion.hidden) return;
    if (item.rendition === 'pending') {
      try {
        const status = await get('/api/renditions?id=' + encodeURIComponent(item.id));
        if (status.state) item.rendition = status.state;
      } catch {
        return;
      }
      if (this.current !== item) return;
      if (item.rendition === 'pending') return toast('The motion of this Live Photo is still being prepared for playback');
    }
    if (item.rendition === 'failed') return toast('The motion of this Live Photo could not be converted for the browser; download it to watch.');
    $('viewer-live').setAttribute('aria-pressed', 'true');
    this.motion.src = urls.motion(item.id);
    this.motion.hidden = false;
    this.motion.play().catch(() => {});
  }

  /** Back to the still. */
  stopMotion() {
    $('viewer-live').setAttribute('aria-pressed', 'false');
    if (this.motion.hidden) return;
    this.motion.pause();
    this.motion.hidden = true;
    this.motion.removeAttribute('src');
    this.motion.load();
  }

  /** Takes the item shown out of the trash; it leaves the trash's list, and the viewer
   * moves on to its neighbour. */
  /** Moves the shown item to the trash, confirmed as the grid's delete is, with an Undo;
   * the viewer goes on to the next item (or closes when none is left). */
  async moveToTrash() {
    const item = this.item;
    if (!item || item.deletedAt) return;
    const ok = await confirmAction({
      title: 'Move ' + item.name + ' to the trash?',
      text: 'It stays in the Trash for 30 days, where you can restore it, then is deleted for good.',
      action: 'Move to trash',
    });
    if (!ok || this.item !== item) return;
    try {
      await post('/api/items/delete', { ids: [item.id] });
      toast('Moved ' + item.name + ' to the trash', 'info', 8000,
        { label: 'Undo', run: () => undoDelete([item.id], this.catalog, this.folders) });
      this.catalog.drop([item.id]);
      this.folders?.refresh().catch(() => {});
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  async restore() {
    const item = this.item;
    if (!item?.deletedAt) return;
    try {
      await post('/api/trash/restore', { ids: [item.id] });
      toast('Restored ' + item.name);
      this.catalog.drop([item.id]);
      this.folders?.refresh().catch(() => {});
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  loaded() {
    $('viewer-spinner').hidden = true;
    this.image.classList.add('ready');
  }

  /**
   * Zoomed in past the preview's own pixels, the photo is swapped for its original (or,
   * for formats an <img> cannot show, the server's full-size JPEG of it), fetched once
   * per showing. The element keeps the size it
   * has on screen, so the swap changes sharpness, never the picture's place.
   */
  maybeLoadOriginal(scale) {
    const item = this.current;
    const image = this.image;
    if (!item || this.original || item.kind !== 'photo') return;
    if (!image.naturalWidth || !item.width || scale <= 1) return;
    const needed = image.clientWidth * scale * (window.devicePixelRatio || 1);
    if (needed <= image.naturalWidth * 1.05 || Math.max(item.width, item.height) <= Math.max(image.naturalWidth, image.naturalHeight)) return;
    // Fetched as a blob, decoded aside, then shown: every answer is no-store, so handing
    // the <img> the URL again would download the original a second time.
    const original = { item };
    this.original = original;
    const source = SHOWN_AS_IS.has(item.mimeType) ? urls.original(item.id) : urls.full(item.id);
    fetch(source, { credentials: 'same-origin', cache: 'no-store' })
      .then((response) => (response.ok ? response.blob() : Promise.reject(new Error(String(response.status)))))
      .then(async (blob) => {
        if (this.original !== original) return;
        const url = URL.createObjectURL(blob);
        const decoded = new Image();
        decoded.src = url;
        await decoded.decode();
        if (this.current !== item || this.original !== original) return URL.revokeObjectURL(url);
        image.style.width = image.clientWidth + 'px';
        image.style.height = image.clientHeight + 'px';
        this.dropOriginal();
        this.fullURL = url;
        image.src = url;
        image.dataset.full = 'true';
      })
      .catch(() => { /* the preview stays: sharp enough to go on with */ });
  }

  /** Frees the decoded original's blob, if one is shown. */
  dropOriginal() {
    if (this.fullURL) URL.revokeObjectURL(this.fullURL);
    this.fullURL = null;
  }

  preload(index) {
    const item = this.catalog.items[index];
    if (item && item.kind === 'photo' && item.viewsLeft == null) new Image().src = urls.preview(item.id);
  }

  stopVideo() {
    $('viewer-rendition').hidden = true;
    if (this.video.getAttribute('src')) {
      this.video.pause();
      this.video.removeAttribute('src');
      this.video.load();
    }
  }

  /** After the list changed under us (a delete, say), shows the same item again or its neighbour. */
  resync() {
    if (!this.catalog.loaded) return; // a reload is under way; its first page brings a new 'change'
    const index = this.catalog.indexOf(this.item.id);
    if (index >= 0) this.index = index;
    else if (this.index < this.catalog.items.length || this.catalog.done) this.show(Math.min(this.index, this.catalog.items.length - 1));
  }

  paintFavorite() {
    const favorite = !!this.current?.favorite;
    const button = $('viewer-favorite');
    button.setAttribute('aria-pressed', String(favorite));
    button.setAttribute('aria-label', favorite ? 'Remove from favourites' : 'Add to favourites');
    button.title = button.getAttribute('aria-label') + ' (F)';
  }

  async toggleFavorite() {
    const item = this.current;
    if (!item) return;
    try {
      const updated = await post('/api/items/' + encodeURIComponent(item.id) + '/favorite', { favorite: !item.favorite });
      if (this.current?.id === updated.id) this.current = updated;
      this.paintFavorite();
      this.catalog.update(updated);
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  key(event) {
    if (!this.isOpen || event.defaultPrevented || document.querySelector('dialog[open]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const inVideo = event.target === this.video;
    switch (event.key) {
      case 'Escape': this.onRequestClose(); break;
      case 'ArrowLeft': if (inVideo) return; this.step(-1); break;
      case 'ArrowRight': if (inVideo) return; this.step(1); break;
      case '+': case '=': this.zoom.by(1.5); break;
      case '-': this.zoom.by(1 / 1.5); break;
      case '0': this.zoom.reset(); break;
      case 'f': case 'F': this.toggleFavorite(); break;
      case 'Delete': this.moveToTrash(); break;
      default: return;
    }
    event.preventDefault();
  }
}
