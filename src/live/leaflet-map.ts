/**
 * The live page's map, in a chunk of its own loaded only when there is a position to show:
 * Leaflet with the configured tiles, the latest position with its accuracy circle, and the
 * recent trail. Everything drawn is vector (SVG), so it still shows where tiles cannot load.
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { LivePosition, MapTiles } from './api';

export interface LiveMapHandle {
  /** Draws the latest position (first in `trail`, newest first) and the path it came along. */
  show(position: LivePosition, trail: LivePosition[]): void;
  remove(): void;
}

const RED = '#c62828';
const htmlText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Creates the map inside `element`. */
export function createLiveMap(element: HTMLElement, tiles: MapTiles): LiveMapHandle {
  const map = L.map(element, { scrollWheelZoom: false, zoomSnap: 0.5 });
  // Leaflet's own credit (with a flag) is left out; the tile provider's is required and kept.
  map.attributionControl.setPrefix(false);
  L.tileLayer(tiles.tile_url, {
    maxZoom: 19,
    // Sharp on phones: on a screen of more than one pixel per CSS pixel, tiles of the next zoom
    // level at half their size (a plain 256 px tile there looks blurred).
    detectRetina: true,
    // The page's address holds the alert's secret id: tile servers get the origin only.
    referrerPolicy: 'strict-origin',
    attribution: `<a href="${htmlText(tiles.attribution_url)}" target="_blank" rel="noreferrer">${htmlText(tiles.attribution)}</a>`,
  }).addTo(map);
  const path = L.polyline([], { color: RED, weight: 3, opacity: 0.6, className: 'live-trail' }).addTo(map);
  const circle = L.circle([0, 0], { radius: 1, color: RED, weight: 1, fillOpacity: 0.12, className: 'live-accuracy' });
  const marker = L.circleMarker([0, 0], {
    radius: 8,
    color: '#fff',
    weight: 3,
    fillColor: RED,
    fillOpacity: 1,
    className: 'live-marker',
  });
  let placed = false;

  return {
    show(position, trail) {
      const latest = L.latLng(position.latitude, position.longitude);
      circle.setLatLng(latest).setRadius(Math.max(1, position.accuracy));
      marker.setLatLng(latest);
      path.setLatLngs(trail.map((p) => L.latLng(p.latitude, p.longitude)));
      if (!placed) {
        circle.addTo(map);
        marker.addTo(map);
        placed = true;
        // The accuracy circle and the trail, close in but never closer than street level.
        const bounds = latest.toBounds(Math.max(1, position.accuracy) * 2);
        for (const p of trail) bounds.extend([p.latitude, p.longitude]);
        map.fitBounds(bounds, { maxZoom: 17, padding: [16, 16] });
      } else if (!map.getBounds().contains(latest)) {
        map.panTo(latest);
      }
    },
    remove() {
      map.remove();
    },
  };
}
