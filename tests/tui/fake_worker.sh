#!/bin/sh
# A stand-in for `kbx worker` in TUI tests (KBX_TUI_WORKER): it takes the request and answers
# with the events in $KBX_FAKE_EVENTS, a run recorded in the worker's wire format (core/events.h),
# so that the diff screen can be tested on a machine without a GPU.
read -r request
cat "$KBX_FAKE_EVENTS"
