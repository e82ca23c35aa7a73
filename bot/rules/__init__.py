"""The pure rules core: standard library only, random source passed in."""
