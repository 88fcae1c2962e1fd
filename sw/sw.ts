/// <reference lib="WebWorker" />
import { setUpAlertQueue } from './alert-queue';
import { setUpMessages } from './messages';
import { setUpNavigation } from './navigation';
import { setUpPrecache } from './precache';
import { setUpPush } from './push';

// Order matters: precached files first, then navigations, then the alert queue's POST route.
setUpPrecache();
setUpNavigation();
setUpAlertQueue();
setUpMessages();
setUpPush();
